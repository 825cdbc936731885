package cli

import (
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

func init() { register("gids", gidsCmd) }

func gidsCmd() *command {
	return &command{
		Name:    "gids",
		Summary: "show the GID tables: each GID with its type, netdev and the IP address it encodes",
		Usage:   "[flags] [DEV | DEV/PORT | dev DEV | link DEV/PORT] [port N] [index N] [type v1|v2] [netdev NAME]",
		Help: `Reads ports/N/gids and gid_attrs like rdma-core's show_gids. Only populated
entries are listed. A * marks the GID index to use for RoCE v2 over IPv4
(ibv_rc_pingpong -g INDEX, ib_write_bw -x INDEX).

JSON keys (-j, an array, one object per GID): dev, port, index, gid (as
sysfs prints it), addr (as ibv_devinfo prints it), ip (the IPv4 address
of an IPv4-mapped GID, else the IPv6 one), ipv4, type ("RoCE v2",
"IB/RoCE v1"), netdev, recommended.
` + viewHelpJSON + `

Examples:
  verbscope gids
  verbscope gids rxe0/1 type v2
  verbscope gids dev rxe0 type=v2 -j
  ibv_rc_pingpong -g $(verbscope gids -j | jq '.[] | select(.recommended) | .index')`,
		FlagsAnywhere: true,
		Setup: deviceView("gids", func(env *Env, o *viewOpts, flt view.Filters, devs []sysfsmon.Device) error {
			rows := sysfsmon.GIDRows(devs, flt)
			sayNoMatch(env, "gids", "GID", len(rows), flt)
			if err := view.WriteRows(env.Stdout, rows, o.json, o.pretty); err != nil || o.json {
				return err
			}
			return sysfsmon.WriteGIDNote(env.Stdout, rows)
		}),
	}
}
