package ui

import (
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/themes"
)

// irqSpec is the devices' interrupts (/proc/interrupts, /proc/irq/N):
// a sysfs view (view_sysfs.go) whose rows add the per-CPU strip and
// flags, and whose detail adds the per-CPU rates.
var irqSpec = sysfsSpec("irq", "IRQs", "the devices' interrupts and their CPUs (procfs)", "irqs", []column{
	col("dev", "dev", 0, false), col("irq", "IRQ", 0, true), col("name", "name", 1, false),
	col("mode", "mode", 2, false), col("smp_affinity_list", "smp_affinity", 1, false),
	col("effective_affinity_list", "effective", 0, false), col("rate", "irq/s", 0, true),
	{Key: "cpus", Title: "per-CPU", Prio: 3}, col("flags", "flags", 0, false)},
	"irqs")

func (p *sysBuilder) irqs(d *sysData, u sysfsmon.Update, ascii bool) {
	if u.IRQs == nil {
		d.notes["irq"] = "no IRQ reading (see the alerts line)"
		return
	}
	cols := sysfsColumns["irq"]
	index := colIndex(cols)
	var why []string
	for i := range u.IRQs.Devices {
		dv := &u.IRQs.Devices[i]
		if p.skip(dv.Device) {
			continue
		}
		if len(dv.IRQs) == 0 {
			why = append(why, dv.Device+": "+dv.NoIRQs)
			continue
		}
		allCPU0 := len(dv.IRQs) > 1
		for _, q := range dv.IRQs {
			if q.Effective != "0" {
				allCPU0 = false
			}
		}
		rates := map[int][]float64{}
		for _, r := range dv.RatesOf(u.IRQRates) {
			rates[r.IRQ] = r.PerCPU
		}
		for j, r := range dv.IRQRows(u.IRQs.CPUs, u.IRQRates, u.IRQRates != nil) {
			row := fromFields(cols, index, r)
			row.Key = dv.Device + "/" + row.Key
			q := dv.IRQs[j]
			var flags []string
			if q.Mode == "intx" {
				flags, row.Mark = append(flags, "INTx"), markWarn
			}
			if allCPU0 {
				flags, row.Mark = append(flags, "all on CPU0"), markWarn
			}
			row.Cells[index["flags"]] = strings.Join(flags, ", ")
			row.Cells[index["cpus"]] = sparkline(rates[q.IRQ], ascii)
			row.Cells[index["dev"]] = dv.Device
			d.rows["irq"] = append(d.rows["irq"], row)
		}
	}
	if len(why) > 0 {
		d.notes["irq"] = strings.Join(why, "; ")
	}
}

// irqDetail is an IRQ's rate on each CPU.
func irqDetail(th *themes.Theme, sys *sysData, row tableRow) []string {
	if sys == nil {
		return nil
	}
	var out []string
	for _, r := range sys.u.IRQRates {
		if r.Device+"/"+itoa(r.IRQ) != row.Key || sys.u.IRQs == nil {
			continue
		}
		out = append(out, "", th.Render(themes.SlotHeader, "interrupts per second on each CPU"))
		cpus := sys.u.IRQs.CPUs
		var line strings.Builder
		for i, v := range r.PerCPU {
			cpu := i
			if i < len(cpus) {
				cpu = cpus[i]
			}
			line.WriteString(padTo("cpu"+itoa(cpu), 7) + padTo(strconv.FormatFloat(v, 'f', 0, 64), 9))
			if i%6 == 5 {
				out = append(out, "  "+line.String())
				line.Reset()
			}
		}
		if line.Len() > 0 {
			out = append(out, "  "+line.String())
		}
	}
	return out
}
