package inspect

import (
	"context"

	"github.com/mdlayher/netlink"
)

// System is the RDMA subsystem's global settings as RDMA_NLDEV_CMD_SYS_GET
// reports them (nldev_sys_get_doit in nldev.c; `rdma system show`,
// rdma-system(8)).
type System struct {
	// NetnsMode is RDMA_NLDEV_SYS_ATTR_NETNS_MODE: whether devices are
	// shared by all network namespaces or owned by one.
	NetnsMode NetnsMode
	// CopyOnFork is RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK (kernel 5.12+):
	// whether fork() copies pinned DMA pages instead of needing
	// ibv_fork_init(3).
	CopyOnFork bool
	// PrivilegedQKey is RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE (kernel
	// 6.5+): whether unprivileged users may use controlled QKEYs.
	PrivilegedQKey bool
	Attrs          AttrSet
}

// System reads the subsystem settings.
func (c *Conn) System() (System, error) { return c.system(context.Background()) }

func (c *Conn) system(ctx context.Context) (System, error) {
	const op = "system settings"
	var s System
	err := c.do(ctx, op, request{cmd: CmdSysGet}, func(m netlink.Message) error {
		var err error
		if s, err = decodeSystem(m.Data); err != nil {
			return malformed(op, err)
		}
		return nil
	})
	return s, err
}

func decodeSystem(data []byte) (System, error) {
	var s System
	it := newAttrIter(data)
	for it.next() {
		switch it.typ {
		case AttrSysNetnsMode:
			s.NetnsMode = NetnsMode(it.u8())
		case AttrSysCopyOnFork:
			s.CopyOnFork = it.u8() != 0
		case AttrSysPrivilegedQKeyMode:
			s.PrivilegedQKey = it.u8() != 0
		}
		s.Attrs.Add(it.typ)
	}
	return s, it.err
}
