package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/verbscope/verbscope/sysfsmon"
)

func init() { register(portsCmd) }

func portsCmd() *Command {
	return &Command{
		Name:    "ports",
		Summary: "show RDMA ports: state, rate, LIDs, link layer, netdev and GID table use",
		Usage:   "[flags] [dev NAME] [port N]",
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
  verbscope ports dev rxe0 port 1
  verbscope ports -j | jq '.[] | select(.state != "ACTIVE")'`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			o := addViewFlags(fs)
			return func(ctx context.Context, args []string) error {
				flt, err := parseFilters(args, "dev", "port")
				if err != nil {
					return err
				}
				devs, err := readDevices(o, flt)
				if err != nil {
					return err
				}
				var ports []sysfsmon.Port
				for _, d := range devs {
					warn(env, "ports", d.Warnings)
					for _, p := range d.Ports {
						if flt.match("port", strconv.Itoa(p.Port)) {
							ports = append(ports, p)
						}
					}
				}
				if o.json {
					return writeJSON(env.Stdout, o, ports)
				}
				t := newTable("DEV", "PORT", "STATE", "PHYS", "RATE", "LINK", "LID", "SM_LID", "SM_SL", "LMC", "CAP_MASK", "NETDEV", "MTU", "GIDS", "GID_IDX")
				for _, p := range ports {
					mtu, idx := "-", "-"
					if p.NetdevMTU > 0 {
						mtu = strconv.Itoa(p.NetdevMTU)
					}
					if p.RecommendedGIDIndex >= 0 {
						idx = strconv.Itoa(p.RecommendedGIDIndex)
					}
					t.add(p.Device, strconv.Itoa(p.Port), dash(p.StateName), dash(p.PhysStateName), dash(p.RateText), dash(p.LinkLayer),
						hex(uint64(p.LID), 0), hex(uint64(p.SMLID), 0), strconv.Itoa(int(p.SMSL)), strconv.Itoa(int(p.LMC)),
						hex(uint64(p.CapMask), 8), dash(p.Netdev), mtu, fmt.Sprintf("%d/%d", len(p.GIDs), p.GIDTableLen), idx)
				}
				t.write(env.Stdout)
				return nil
			}
		},
	}
}
