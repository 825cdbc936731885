package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

func init() { register(devicesCmd) }

func devicesCmd() *Command {
	return &Command{
		Name:    "devices",
		Summary: "list RDMA devices with their firmware, GUIDs, netdevs, PCI address and NUMA node",
		Usage:   "[flags] [dev NAME]",
		Help: `Reads /sys/class/infiniband (no libibverbs needed): what ibv_devinfo and
ibdev2netdev show together. Software devices (rxe, siw) show "virtual" for
PCI and their parent netdev.

JSON keys (-j, an array, one object per device): dev, node_type,
node_type_num, node_guid, sys_image_guid, fw_ver, hca_type, board_id,
hw_rev, node_desc, parent, soft, pci, numa_node, local_cpus, netdevs,
uverbs, ports (as in 'verbscope ports -j'), warnings.
` + viewHelpJSON + `

Examples:
  verbscope devices
  verbscope devices -d dev mlx5_0
  verbscope devices -j | jq -r '.[] | "\(.dev) \(.netdevs)"'`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			o := addViewFlags(fs)
			details := fs.Bool("d", false, "details: also sys_image_guid, board_id, hw_rev, node_desc, local CPUs")
			return func(ctx context.Context, args []string) error {
				flt, err := parseFilters(args, "dev")
				if err != nil {
					return err
				}
				devs, err := readDevices(o, flt)
				if err != nil {
					return err
				}
				for _, d := range devs {
					warn(env, "devices", d.Warnings)
				}
				if o.json {
					return writeJSON(env.Stdout, o, devs)
				}
				t := newTable("DEV", "TYPE", "FW", "HCA", "NODE_GUID", "NETDEVS", "PCI", "NUMA", "PORTS", "UVERBS")
				for _, d := range devs {
					pci := d.PCI
					if d.Soft {
						pci = "virtual"
					}
					numa := "-"
					if d.NUMANode != nil {
						numa = strconv.Itoa(*d.NUMANode)
					}
					t.add(d.Name, dash(d.NodeTypeName), dash(d.FWVer), dash(d.HCAType), dash(d.NodeGUID),
						dash(strings.Join(d.Netdevs, ",")), dash(pci), numa, strconv.Itoa(len(d.Ports)), dash(d.Uverbs))
				}
				t.write(env.Stdout)
				if *details {
					for _, d := range devs {
						fmt.Fprintf(env.Stdout, "\n%s: sys_image_guid %s board_id %s hw_rev %s node_desc %q parent %s local_cpus %s\n",
							d.Name, dash(d.SysImageGUID), dash(d.BoardID), dash(d.HWRev), d.NodeDesc, dash(d.Parent), dash(d.LocalCPUs))
					}
				}
				return nil
			}
		},
	}
}

// readDevices reads the devices the dev= filter selects.
func readDevices(o *viewOpts, flt filters) ([]sysfsmon.Device, error) {
	f, names, err := o.openChecked(flt)
	if err != nil {
		return nil, err
	}
	var devs []sysfsmon.Device
	for _, n := range names {
		if !flt.match("dev", n) {
			continue
		}
		d, err := f.Device(n)
		if err != nil {
			return nil, err
		}
		devs = append(devs, d)
	}
	return devs, nil
}
