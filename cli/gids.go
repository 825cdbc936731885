package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

// gidRow is one GID in the gids view's JSON: the GID with its place.
type gidRow struct {
	Device string `json:"dev"`
	Port   int    `json:"port"`
	sysfsmon.GID
	Recommended bool `json:"recommended"`
}

func init() { register(gidsCmd) }

func gidsCmd() *Command {
	return &Command{
		Name:    "gids",
		Summary: "show the GID tables: each GID with its type, netdev and the IP address it encodes",
		Usage:   "[flags] [dev NAME] [port N] [type v1|v2|TYPE]",
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
  verbscope gids dev rxe0 type v2
  ibv_rc_pingpong -g $(verbscope gids -j | jq '.[] | select(.recommended) | .index')`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			o := addViewFlags(fs)
			return func(ctx context.Context, args []string) error {
				flt, err := parseFilters(args, "dev", "port", "type")
				if err != nil {
					return err
				}
				devs, err := readDevices(o, flt)
				if err != nil {
					return err
				}
				var rows []gidRow
				var recommended []string
				for _, d := range devs {
					warn(env, "gids", d.Warnings)
					for _, p := range d.Ports {
						if !flt.match("port", strconv.Itoa(p.Port)) {
							continue
						}
						for _, g := range p.GIDs {
							if t, ok := flt["type"]; ok && !strings.HasSuffix(g.Type, t) {
								continue
							}
							r := gidRow{Device: d.Name, Port: p.Port, GID: g, Recommended: g.Index == p.RecommendedGIDIndex}
							rows = append(rows, r)
							if r.Recommended {
								recommended = append(recommended, fmt.Sprintf("%s port %d index %d", d.Name, p.Port, g.Index))
							}
						}
					}
				}
				if o.json {
					return writeJSON(env.Stdout, o, rows)
				}
				t := newTable("DEV", "PORT", "INDEX", "GID", "IP", "TYPE", "NETDEV")
				for _, r := range rows {
					idx := strconv.Itoa(r.Index)
					if r.Recommended {
						idx += "*"
					}
					t.add(r.Device, strconv.Itoa(r.Port), idx, r.GID.GID, r.IP, dash(r.Type), dash(r.Netdev))
				}
				t.write(env.Stdout)
				if len(recommended) > 0 {
					fmt.Fprintf(env.Stdout, "\n* for RoCE v2 over IPv4 (or InfiniBand): %s\n", strings.Join(recommended, "; "))
				}
				return nil
			}
		},
	}
}
