package cli

import (
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

func init() { register("gids", gidsCmd) }

func gidsCmd() *command {
	return &command{
		Name:          "gids",
		Summary:       "show the GID tables: each GID with its type, netdev and the IP address it encodes",
		Usage:         "[flags] [DEV | DEV/PORT | dev DEV | link DEV/PORT] [port N] [index N] [type v1|v2] [netdev NAME]",
		Help:          helpText("gids"),
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
