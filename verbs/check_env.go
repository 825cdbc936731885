package verbs

import (
	"os"
	"strings"

	"github.com/verbscope/verbscope/rdma"
)

// CheckEnv gathers what rdma.Check knows of a device and one of its ports
// (ibv_query_device(3), ibv_query_port(3), ibv_query_gid_table(3)); what
// cannot be read is left unknown, and rdma.Check skips the rules that need it.
// The QP's own facts (QPPort, SQDraining) are the caller's to add.
func (c *Context) CheckEnv(port int) *rdma.CheckEnv {
	env := &rdma.CheckEnv{Kernel: kernelRelease()}
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

// DeviceCheckEnv is CheckEnv of a device opened for the question and
// closed after it (ibv_open_device(3)), for a watcher of other
// processes' QPs that keeps no device open: an open context would make
// `rdma link delete` wait for it (rxe has no disassociate_ucontext).
// It is nil when the device cannot be opened.
func DeviceCheckEnv(dev string, port int) *rdma.CheckEnv {
	ctx, err := Open(dev)
	if err != nil {
		return nil
	}
	defer ctx.Close()
	return ctx.CheckEnv(port)
}

// kernelRelease is the running kernel's release, as uname -r prints it
// (proc(5) /proc/sys/kernel/osrelease); "" when it cannot be read.
func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
