package doctor

import (
	"errors"
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

// irqMode is how an IRQ is delivered: what sysfsmon found in msi_irqs/,
// or, for an IRQ found by name, what its irq chip says.
func irqMode(q sysfsmon.IRQ) string {
	if q.Mode != "" {
		return q.Mode
	}
	switch chip := strings.ToUpper(q.Chip); {
	case strings.Contains(chip, "MSIX"), strings.Contains(chip, "MSI-X"):
		return "msix"
	case strings.Contains(chip, "MSI"):
		return "msi" // PCI-MSI: older kernels name MSI-X vectors so too
	case strings.Contains(chip, "APIC"), strings.Contains(q.HWIRQ, "fasteoi"), strings.Contains(q.HWIRQ, "level"):
		return "intx"
	}
	return "unknown"
}

// irqCPUs is where the IRQ really goes: effective_affinity_list, or
// smp_affinity_list when the kernel has no effective list.
func irqCPUs(q sysfsmon.IRQ) string {
	if q.Effective != "" {
		return q.Effective
	}
	return q.Affinity
}

// checkIRQs wants each hardware device to have interrupts, as MSI-X
// vectors rather than a legacy INTx line, not all on CPU0, and about one
// completion vector per CPU. Software devices have none of their own.
func checkIRQs(f *Facts) Result {
	r := newResult()
	switch {
	case errors.Is(f.IRQsErr, sysfsmon.ErrNoRDMA):
		return r.na("there are no RDMA devices")
	case f.IRQsErr != nil:
		r.judge(Warn, "/proc/interrupts", f.IRQsErr.Error(), "/proc/interrupts")
		r.problem(Warn, "the interrupts could not be read")
		return r.done()
	case f.IRQs == nil || len(f.IRQs.Devices) == 0:
		return r.na("there are no RDMA devices")
	}
	cpus := len(f.IRQs.CPUs)
	if f.Host != nil && f.Host.CPUs > 0 {
		cpus = f.Host.CPUs
	}
	var soft, fine []string
	for _, d := range f.IRQs.Devices {
		if d.Soft {
			r.note(d.Device, "no IRQs: "+d.NoIRQs, srcClassIB+"/"+d.Device+" (no device link)")
			soft = append(soft, d.Device+" is a "+d.NoIRQs)
			continue
		}
		if len(d.IRQs) == 0 {
			r.judge(Fail, d.Device, "no IRQs: "+d.NoIRQs, "/sys/bus/pci/devices/"+d.PCI+"/msi_irqs, /proc/interrupts")
			r.problem(Fail, "%s has no interrupts: %s", d.Device, d.NoIRQs)
			r.fix("dmesg | grep -i %s shows whether the driver failed to set the device up; lspci -vv -s %s shows whether MSI-X is enabled", d.Device, dash(d.PCI))
			continue
		}
		if ok := deviceIRQs(r, f, d, cpus); ok {
			fine = append(fine, fmt.Sprintf("%s: %s", d.Device, plural(len(d.IRQs), "IRQ")))
		}
	}
	if r.worst == "" {
		return r.na("%s", strings.Join(soft, "; "))
	}
	if r.worst == Pass {
		r.ok("%s, message-signalled, spread over the CPUs", strings.Join(fine, "; "))
	}
	return r.done()
}

// deviceIRQs judges one hardware device's IRQs and reports whether they
// are fine.
func deviceIRQs(r *result, f *Facts, d sysfsmon.DeviceIRQs, cpus int) bool {
	modes := map[string]int{}
	var intx []string
	cpu0, total, on0 := true, uint64(0), uint64(0)
	for _, q := range d.IRQs {
		m := irqMode(q)
		modes[m]++
		if m == "intx" {
			intx = append(intx, fmt.Sprint(q.IRQ))
		}
		if irqCPUs(q) != "0" {
			cpu0 = false
		}
		total += q.Total
		if len(q.Counts) > 0 {
			on0 += q.Counts[0]
		}
		r.note(fmt.Sprintf("%s IRQ %d", d.Device, q.IRQ), fmt.Sprintf("%s %s, %s, effective CPUs %s, %d interrupts", q.Chip, dash(q.Name), m, dash(irqCPUs(q)), q.Total),
			fmt.Sprintf("/proc/interrupts, /proc/irq/%d/effective_affinity_list", q.IRQ))
	}
	ok := true
	if len(intx) > 0 {
		ok = false
		r.judge(Fail, d.Device+" interrupt mode", "legacy INTx (IRQ "+strings.Join(intx, ", ")+")", "/sys/bus/pci/devices/"+dash(d.PCI)+"/irq, msi_irqs")
		r.problem(Fail, "%s uses a legacy INTx line, not MSI-X: one shared interrupt on one CPU for every queue", d.Device)
		r.fix("enable MSI-X: lspci -vv -s %s shows MSI-X: Enable-/+; check for pci=nomsi on the kernel command line (/proc/cmdline), the BIOS setting, and, in a VM, that the hypervisor passes MSI-X through", dash(d.PCI))
	}
	if !ok {
		return false // on one legacy line, where it goes and how many vectors are moot
	}
	if cpus > 1 && cpu0 {
		ok = false
		r.judge(Warn, d.Device+" CPUs", fmt.Sprintf("every IRQ goes to CPU0 (%d of %d interrupts counted there)", on0, total), "/proc/irq/*/effective_affinity_list")
		r.problem(Warn, "all of %s's interrupts go to CPU0, which then does all its completion work", d.Device)
		r.fix("spread them: run irqbalance (systemctl start irqbalance), or pin each completion IRQ to its own CPU near the device: echo CPU > /proc/irq/N/smp_affinity_list")
	}
	vectors, vsrc := len(d.IRQs), "IRQs found"
	if v := f.Verbs; v != nil && v.Open[d.Device].NumCompVectors > 0 {
		vectors, vsrc = v.Open[d.Device].NumCompVectors, "num_comp_vectors"
	}
	if vectors < cpus {
		ok = false
		r.judge(Warn, d.Device+" vectors", fmt.Sprintf("%d (%s) for %d CPUs", vectors, vsrc, cpus), "ibv_open_device (num_comp_vectors), /proc/stat")
		r.problem(Warn, "%s has %s (%s) for %d CPUs, so CQs cannot spread completions over every CPU", d.Device, plural(vectors, "completion vector"), vsrc, cpus)
		r.fix("drivers normally ask for one completion vector per CPU; fewer means the device got fewer MSI-X vectors than it wanted: check dmesg for the driver's vector allocation (on SR-IOV VFs and in VMs the host sets the number)")
	}
	if ok {
		r.judge(Pass, d.Device, fmt.Sprintf("%d IRQs (%s), %d vectors for %d CPUs", len(d.IRQs), modeText(modes), vectors, cpus), "/proc/interrupts, msi_irqs")
	}
	return ok
}

func modeText(m map[string]int) string {
	var parts []string
	for _, k := range []string{"msix", "msi", "intx", "unknown"} {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
		}
	}
	return strings.Join(parts, ", ")
}
