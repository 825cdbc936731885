package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

// irqDevice is one device in the irqs view's JSON.
type irqDevice struct {
	sysfsmon.DeviceIRQs
	CPUs []int `json:"cpus"`
	// NumCompVectors comes from libibverbs (ibv_context.num_comp_vectors)
	// on the live system; null on recorded trees or when verbs fails.
	NumCompVectors *int               `json:"num_comp_vectors"`
	Rates          []sysfsmon.IRQRate `json:"rates,omitempty"`
}

func init() { register(irqsCmd) }

func irqsCmd() *Command {
	return &Command{
		Name:    "irqs",
		Summary: "show each RDMA device's interrupts: per-CPU counts or rates, affinity, NUMA node",
		Usage:   "[flags] [dev NAME]",
		Help: `Finds a device's IRQs from its PCI function's msi_irqs/ (MSI-X or MSI), its
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
  verbscope irqs -j | jq '.[].irqs[] | {irq, effective_affinity_list}'`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			o := addViewFlags(fs)
			interval := fs.Duration("interval", 0, "read twice this `long` apart and show interrupts per second")
			return func(ctx context.Context, args []string) error {
				flt, err := parseFilters(args, "dev")
				if err != nil {
					return err
				}
				f, _, err := o.openChecked(flt)
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
				var out []irqDevice
				for _, d := range snap.Devices {
					if !flt.match("dev", d.Device) {
						continue
					}
					warn(env, "irqs", d.Warnings)
					od := irqDevice{DeviceIRQs: d, CPUs: snap.CPUs}
					if liveVerbs(f) {
						if n, err := numCompVectors(d.Device); err == nil {
							od.NumCompVectors = &n
						} else {
							fmt.Fprintf(env.Stderr, "verbscope irqs: warning: %s: num_comp_vectors: %v\n", d.Device, err)
						}
					}
					for _, r := range rates {
						if r.Device == d.Device {
							od.Rates = append(od.Rates, r)
						}
					}
					out = append(out, od)
				}
				if o.json {
					return writeJSON(env.Stdout, o, out)
				}
				for i, d := range out {
					if i > 0 {
						fmt.Fprintln(env.Stdout)
					}
					writeIRQDevice(env, d, *interval > 0)
				}
				return nil
			}
		},
	}
}

func writeIRQDevice(env *Env, d irqDevice, withRates bool) {
	var facts []string
	if d.Soft {
		facts = append(facts, "software device")
	} else if d.PCI != "" {
		facts = append(facts, "pci "+d.PCI)
	}
	if d.NUMANode != nil {
		facts = append(facts, "numa node "+strconv.Itoa(*d.NUMANode))
	}
	if len(d.Netdevs) > 0 {
		facts = append(facts, "netdevs "+strings.Join(d.Netdevs, ","))
	}
	if d.NumCompVectors != nil {
		facts = append(facts, fmt.Sprintf("num_comp_vectors %d", *d.NumCompVectors))
	}
	fmt.Fprintf(env.Stdout, "%s: %s\n", d.Device, strings.Join(facts, ", "))
	if len(d.IRQs) == 0 {
		fmt.Fprintf(env.Stdout, "  no IRQs: %s\n", d.NoIRQs)
		if d.Soft && d.NumCompVectors != nil {
			fmt.Fprintf(env.Stdout, "  (its %d completion vectors are not interrupts)\n", *d.NumCompVectors)
		}
		return
	}
	head := []string{"IRQ", "NAME", "MODE", "MATCH", "AFFINITY", "EFFECTIVE", "HINT", "NODE"}
	for _, c := range d.CPUs {
		head = append(head, "CPU"+strconv.Itoa(c))
	}
	if withRates {
		head = append(head, "RATE/s")
	} else {
		head = append(head, "TOTAL")
	}
	rates := map[int]sysfsmon.IRQRate{}
	for _, r := range d.Rates {
		rates[r.IRQ] = r
	}
	t := newTable(head...)
	for _, q := range d.IRQs {
		row := []string{strconv.Itoa(q.IRQ), dash(q.Name), dash(q.Mode), q.MatchedBy, dash(q.Affinity), dash(q.Effective), dash(q.Hint), strconv.Itoa(q.Node)}
		for i := range d.CPUs {
			switch {
			case withRates && i < len(rates[q.IRQ].PerCPU):
				row = append(row, rate(rates[q.IRQ].PerCPU[i]))
			case !withRates && i < len(q.Counts):
				row = append(row, strconv.FormatUint(q.Counts[i], 10))
			default:
				row = append(row, "-")
			}
		}
		if withRates {
			row = append(row, rate(rates[q.IRQ].Rate))
		} else {
			row = append(row, strconv.FormatUint(q.Total, 10))
		}
		t.add(row...)
	}
	for line := range strings.SplitSeq(strings.TrimRight(tableString(t), "\n"), "\n") {
		fmt.Fprintln(env.Stdout, "  "+line)
	}
}

func tableString(t *table) string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}
