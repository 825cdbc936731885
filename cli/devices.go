package cli

import (
	"context"
	"flag"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

func init() { register("devices", devicesCmd) }

func devicesCmd() *command {
	return &command{
		Name:          "devices",
		Summary:       "list RDMA devices with their firmware, GUIDs, netdevs, PCI address and NUMA node",
		Usage:         "[flags] [DEV | dev DEV]",
		Help:          helpText("devices"),
		FlagsAnywhere: true,
		Setup: deviceView("devices", func(env *Env, o *viewOpts, flt view.Filters, devs []sysfsmon.Device) error {
			rows := sysfsmon.DeviceRows(devs, flt)
			sayNoMatch(env, "devices", "device", len(rows), flt)
			if err := view.WriteRows(env.Stdout, rows, o.json, o.pretty); err != nil || o.json || o.details == 0 {
				return err
			}
			return sysfsmon.WriteDeviceDetails(env.Stdout, devs, flt)
		}),
	}
}

// deviceView is the Setup of a view of the devices' sysfs (devices,
// ports, gids): the view flags, the filter words of the view named cmd,
// the devices they name read with their warnings printed; show prints
// the rest.
func deviceView(cmd string, show func(env *Env, o *viewOpts, flt view.Filters, devs []sysfsmon.Device) error) func(*flag.FlagSet, *Env) func(context.Context, []string) error {
	return func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
		o := addViewFlags(fs)
		return func(ctx context.Context, args []string) error {
			flt, err := parseWords(cmd, args)
			if err != nil {
				return err
			}
			f, err := o.open()
			if err != nil {
				return err
			}
			devs, err := f.DevicesOf(flt)
			if err != nil {
				return err
			}
			for _, d := range devs {
				warn(env, cmd, d.Warnings)
			}
			return show(env, o, flt, devs)
		}
	}
}
