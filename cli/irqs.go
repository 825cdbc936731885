package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

func init() { register("irqs", irqsCmd) }

func irqsCmd() *command {
	return &command{
		Name:          "irqs",
		Summary:       "show each RDMA device's interrupts: per-CPU counts or rates, affinity, NUMA node",
		Usage:         "[flags] [DEV | dev DEV]",
		Help:          irqsHelp,
		FlagsAnywhere: true,
		Setup:         irqsSetup,
	}
}

// irqsSetup declares the flags of `verbscope irqs` and returns the
// command.
func irqsSetup(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
	o := addViewFlags(fs)
	interval := addIntervalFlag(fs, "read twice this `long` apart and show interrupts per second")
	return func(ctx context.Context, args []string) error {
		flt, err := parseWords("irqs", args)
		if err != nil {
			return err
		}
		f, err := o.openChecked(flt)
		if err != nil {
			return err
		}
		first, snap, err := readTwice(ctx, env, "interrupts", *interval, f.IRQs)
		if err != nil {
			return err
		}
		var rates []sysfsmon.IRQRate
		if first != nil {
			if rates, err = sysfsmon.IRQRates(first, snap); err != nil {
				return err
			}
		}
		warn(env, "irqs", snap.Warnings)
		var rows []view.Row
		printed := 0
		for i := range snap.Devices {
			d := &snap.Devices[i]
			devRates := d.RatesOf(rates)
			row := d.Row(snap.CPUs, nil, devRates)
			if !flt.Match(row) {
				continue
			}
			warn(env, "irqs", d.Warnings)
			var vectors *int
			if liveVerbs(f) {
				if n, err := numCompVectors(d.Device); err == nil {
					vectors = &n
				} else {
					fmt.Fprintf(env.Stderr, "verbscope irqs: warning: %s: num_comp_vectors: %v\n", d.Device, err)
				}
			}
			if o.json {
				rows = append(rows, d.Row(snap.CPUs, vectors, devRates))
				printed++
				continue
			}
			if printed > 0 {
				fmt.Fprintln(env.Stdout)
			}
			printed++
			if err := d.WriteText(env.Stdout, snap.CPUs, vectors, devRates, *interval > 0); err != nil {
				return err
			}
		}
		sayNoMatch(env, "irqs", "device", printed, flt)
		if o.json {
			return view.WriteRowsJSON(env.Stdout, rows, o.pretty)
		}
		return nil
	}
}

// irqsHelp is the text of `verbscope irqs --help` after the flags.
const irqsHelp = `Finds a device's IRQs from its PCI function's msi_irqs/ (MSI-X or MSI), its
legacy INTx line, or the /proc/interrupts rows that name the device, one of
its netdevs or its PCI address, and joins them with /proc/irq/N
(smp_affinity_list, effective_affinity_list, affinity_hint, node): what
show_irq_affinity.sh shows. MATCH says how an IRQ was found. A software
device (rxe, siw) has no interrupts of its own and says so. With
--interval the CPU columns are interrupts per second.

num_comp_vectors (how many completion vectors CQs can spread over) comes
from libibverbs on the live system.

JSON keys (-j, an array, one object per device): dev, pci, numa_node,
netdevs, soft, no_irqs (why there are none), cpus, num_comp_vectors,
warnings, irqs: [{irq, name, chip, hwirq, mode (msix, msi, intx or ""),
matched_by (msi_irqs, intx, name, netdev, pci), listed, per_cpu, total,
smp_affinity_list, effective_affinity_list, affinity_hint, node}]; with
--interval also rates: [{dev, irq, name, per_cpu_rate, rate, delta}].
` + viewHelpJSON + `

Examples:
  verbscope irqs
  verbscope irqs --interval 1s dev mlx5_0
  verbscope irqs -j | jq '.[].irqs[] | {irq, effective_affinity_list}'`
