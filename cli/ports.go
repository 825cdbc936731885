package cli

import (
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

func init() { register("ports", portsCmd) }

func portsCmd() *command {
	return &command{
		Name:          "ports",
		Summary:       "show RDMA ports: state, rate, LIDs, link layer, netdev and GID table use",
		Usage:         "[flags] [DEV | DEV/PORT | dev DEV | link DEV/PORT] [port N] [state STATE] [netdev NAME]",
		Help:          helpText("ports"),
		FlagsAnywhere: true,
		Setup: deviceView("ports", func(env *Env, o *viewOpts, flt view.Filters, devs []sysfsmon.Device) error {
			rows := sysfsmon.PortRows(devs, flt)
			sayNoMatch(env, "ports", "port", len(rows), flt)
			return view.WriteRows(env.Stdout, rows, o.json, o.pretty)
		}),
	}
}
