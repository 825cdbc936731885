package verbs

import "github.com/verbscope/verbscope/rdma"

// CheckEnv gathers what rdma.Check knows of a device and one of its ports
// (ibv_query_device(3), ibv_query_port(3), ibv_query_gid_table(3)); what
// cannot be read is left unknown, and rdma.Check skips the rules that need it.
// The QP's own facts (QPPort, SQDraining) are the caller's to add.
func (c *Context) CheckEnv(port int) *rdma.CheckEnv {
	env := &rdma.CheckEnv{}
	if d, err := c.QueryDevice(); err == nil {
		env.Device, env.PortCount, env.Driver = &d, d.PhysPortCnt, rdma.DriverForVendor(d.VendorID)
	}
	if p, err := c.QueryPort(port); err == nil {
		env.Port = &p
	}
	if gids, err := c.GIDTable(); err == nil {
		env.GIDs = []rdma.GIDEntry{}
		for _, g := range gids {
			if g.Port == port {
				env.GIDs = append(env.GIDs, g)
			}
		}
	}
	return env
}
