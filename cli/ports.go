package cli

import (
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

func init() { register("ports", portsCmd) }

func portsCmd() *command {
	return &command{
		Name:    "ports",
		Summary: "show RDMA ports: state, rate, LIDs, link layer, netdev and GID table use",
		Usage:   "[flags] [DEV | DEV/PORT | dev DEV | link DEV/PORT] [port N] [state STATE] [netdev NAME]",
		Help: `Reads /sys/class/infiniband/DEV/ports/N. GIDS is populated/size of the GID
table; GID_IDX is the GID index to use for RoCE v2 over IPv4 (what
'ibv_rc_pingpong -g' and 'ib_write_bw -x' want), or 0 on InfiniBand.

JSON keys (-j, an array, one object per port): dev, port, state, state_num,
phys_state, phys_state_num, rate, rate_gbps, width, speed, lid, sm_lid,
sm_sl, lmc, cap_mask, link_layer, netdev, netdev_mtu, netdev_operstate,
gid_tbl_len, gids (as in 'verbscope gids -j', without dev and port),
recommended_gid_index (-1: none), pkey_tbl_len, pkeys. Numbers are
numbers (lid 18, not "0x12").
` + viewHelpJSON + `

Examples:
  verbscope ports
  verbscope ports rxe0/1
  verbscope ports dev rxe0 port 1 state ACTIVE
  verbscope ports -j | jq '.[] | select(.state != "ACTIVE")'`,
		FlagsAnywhere: true,
		Setup: deviceView("ports", func(env *Env, o *viewOpts, flt view.Filters, devs []sysfsmon.Device) error {
			rows := sysfsmon.PortRows(devs, flt)
			sayNoMatch(env, "ports", "port", len(rows), flt)
			return view.WriteRows(env.Stdout, rows, o.json, o.pretty)
		}),
	}
}
