package sysfsmon

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// interrupts is /proc/interrupts parsed (Documentation/filesystems/proc.rst,
// "1.2 Kernel data": one column per online CPU, then the irq chip, the
// hardware IRQ with its trigger, and the names of the handlers).
type interrupts struct {
	CPUs  []int           // the CPU numbers of the header columns ("CPU0 CPU1" is [0 1])
	Lines []interruptLine // in file order
}

// interruptLine is one row of /proc/interrupts.
type interruptLine struct {
	IRQ    string   // "24", or a name for architecture rows: "NMI", "LOC", "ERR"
	Num    int      // the IRQ number; -1 for named rows
	Counts []uint64 // per CPU, in the order of interrupts.CPUs; rows like ERR: have fewer
	Chip   string   // the irq chip: "IO-APIC", "PCI-MSI", "IR-PCI-MSIX-0000:3b:00.0"
	HWIRQ  string   // the hardware IRQ and trigger: "32769-edge", "2-edge"
	Name   string   // the handlers' names: "virtio0-requests", "mlx5_comp0@pci:0000:3b:00.0"; for named rows, the description
}

// total is the sum of the per-CPU counts.
func (l interruptLine) total() uint64 {
	var t uint64
	for _, c := range l.Counts {
		t += c
	}
	return t
}

// parseInterrupts parses /proc/interrupts. Rows it cannot read are left
// out and named in the returned error while the rest is returned, so one
// odd row (architectures print a few) never hides the device's IRQs. A
// file without the CPU header is an error with no result.
func parseInterrupts(data string) (interrupts, error) {
	lines := strings.Split(data, "\n")
	var in interrupts
	for _, f := range strings.Fields(lines[0]) {
		n, err := strconv.Atoi(strings.TrimPrefix(f, "CPU"))
		if !strings.HasPrefix(f, "CPU") || err != nil || n < 0 || n >= maxCPUs {
			return interrupts{}, fmt.Errorf("interrupts: header %q: want CPU0, CPU1 and so on", lines[0])
		}
		in.CPUs = append(in.CPUs, n)
	}
	if len(in.CPUs) == 0 {
		return interrupts{}, errors.New("interrupts: no CPU header")
	}
	var bad []error
	for i, raw := range lines[1:] {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		l, err := parseInterruptLine(raw, len(in.CPUs))
		if err != nil {
			bad = append(bad, fmt.Errorf("interrupts: line %d: %w", i+2, err))
			continue
		}
		in.Lines = append(in.Lines, l)
	}
	return in, errors.Join(bad...)
}

func parseInterruptLine(raw string, ncpu int) (interruptLine, error) {
	id, rest, ok := strings.Cut(raw, ":")
	id = strings.TrimSpace(id)
	if !ok || id == "" || strings.ContainsAny(id, " \t") {
		return interruptLine{}, fmt.Errorf("%q does not start with \"IRQ:\"", raw)
	}
	l := interruptLine{IRQ: id, Num: -1}
	if n, err := strconv.Atoi(id); err == nil {
		if n < 0 {
			return interruptLine{}, fmt.Errorf("negative IRQ %d", n)
		}
		l.Num = n
	}
	fields := strings.Fields(rest)
	i := 0
	for ; i < len(fields) && i < ncpu; i++ {
		c, err := strconv.ParseUint(fields[i], 10, 64)
		if err != nil {
			break
		}
		l.Counts = append(l.Counts, c)
	}
	if len(l.Counts) == 0 {
		return interruptLine{}, fmt.Errorf("IRQ %s has no counts", id)
	}
	desc := fields[i:]
	if l.Num < 0 {
		l.Name = strings.Join(desc, " ")
		return l, nil
	}
	// Numbered rows: chip, then the hwirq with its trigger ("32769-edge",
	// or "27 Level" on some architectures), then the handlers.
	if len(desc) > 0 {
		l.Chip, desc = desc[0], desc[1:]
	}
	if len(desc) > 0 && isHWIRQ(desc[0]) {
		l.HWIRQ, desc = desc[0], desc[1:]
		if len(desc) > 0 && (desc[0] == "Level" || desc[0] == "Edge") {
			l.HWIRQ, desc = l.HWIRQ+" "+desc[0], desc[1:]
		}
	}
	l.Name = strings.Join(desc, " ")
	return l, nil
}

// isHWIRQ tells "32769-edge", "2-fasteoi" or a bare number from a name.
func isHWIRQ(s string) bool {
	num, _, _ := strings.Cut(s, "-")
	_, err := strconv.ParseUint(num, 10, 64)
	return err == nil
}

// Module is one line of /proc/modules (Documentation/filesystems/proc.rst;
// the format lsmod prints from).
type Module struct {
	Name   string   `json:"name"`
	Size   uint64   `json:"size"`
	Refs   int      `json:"refcount"` // -1 when the kernel prints "-" (no unload support)
	UsedBy []string `json:"used_by"`  // modules that depend on this one
	State  string   `json:"state"`    // Live, Loading or Unloading
}

// parseModules parses /proc/modules: "name size refcount used,by, state
// address [taints]". Lines it cannot read are named in the error, the rest
// returned.
func parseModules(data string) ([]Module, error) {
	var mods []Module
	var bad []error
	for i, line := range strings.Split(data, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) < 5 {
			bad = append(bad, fmt.Errorf("modules: line %d: %q: want name size refcount used-by state", i+1, line))
			continue
		}
		size, err1 := strconv.ParseUint(f[1], 10, 64)
		refs, err2 := strconv.Atoi(f[2])
		if f[2] == "-" {
			refs, err2 = -1, nil
		}
		if err1 != nil || err2 != nil || refs < -1 || (refs == -1 && f[2] != "-") {
			bad = append(bad, fmt.Errorf("modules: line %d: %q: size or refcount is not a number", i+1, line))
			continue
		}
		m := Module{Name: f[0], Size: size, Refs: refs, State: f[4]}
		if f[3] != "-" {
			for u := range strings.SplitSeq(f[3], ",") {
				if u != "" {
					m.UsedBy = append(m.UsedBy, u)
				}
			}
		}
		mods = append(mods, m)
	}
	return mods, errors.Join(bad...)
}

// Limit is one resource limit; Unlimited means RLIM_INFINITY and Value is
// then 0.
type Limit struct {
	Value     uint64 `json:"value"`
	Unlimited bool   `json:"unlimited"`
}

// String prints the limit as /proc/PID/limits does: bytes or "unlimited".
func (l Limit) String() string {
	if l.Unlimited {
		return "unlimited"
	}
	return strconv.FormatUint(l.Value, 10)
}

// parseMemlock finds "Max locked memory" (RLIMIT_MEMLOCK, getrlimit(2)) in
// /proc/PID/limits and returns its soft and hard limits in bytes. It reads
// both: procfs's Limits only keeps the soft one, and the fix for a too
// small limit depends on the hard one.
func parseMemlock(data string) (soft, hard Limit, err error) {
	for _, line := range strings.Split(data, "\n") {
		rest, ok := strings.CutPrefix(line, "Max locked memory")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 2 {
			return Limit{}, Limit{}, fmt.Errorf("limits: %q: want soft and hard limit", line)
		}
		if soft, err = parseLimit(f[0]); err == nil {
			hard, err = parseLimit(f[1])
		}
		if err != nil {
			return Limit{}, Limit{}, fmt.Errorf("limits: %q: %w", line, err)
		}
		return soft, hard, nil
	}
	return Limit{}, Limit{}, errors.New("limits: no \"Max locked memory\" line")
}

func parseLimit(s string) (Limit, error) {
	if s == "unlimited" {
		return Limit{Unlimited: true}, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return Limit{}, fmt.Errorf("%q is not a number of bytes", s)
	}
	return Limit{Value: v}, nil
}

// parseDpkgVersion returns the version of an installed package from dpkg's
// status database (/var/lib/dpkg/status, deb822 paragraphs; dpkg(1)), or
// "" when pkg is not installed.
func parseDpkgVersion(data, pkg string) string {
	for para := range strings.SplitSeq(data, "\n\n") {
		var name, status, version string
		for line := range strings.SplitSeq(para, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if !ok || strings.HasPrefix(line, " ") {
				continue
			}
			switch k {
			case "Package":
				name = strings.TrimSpace(v)
			case "Status":
				status = strings.TrimSpace(v)
			case "Version":
				version = strings.TrimSpace(v)
			}
		}
		if name == pkg && strings.HasSuffix(status, " installed") {
			return version
		}
	}
	return ""
}

// parseLibibverbsName returns the rdma-core release a libibverbs file name
// carries: rdma-core installs libibverbs.so.1.<ABI minor>.<release>, so
// "libibverbs.so.1.14.44.0" is rdma-core 44.0. Other names give "".
func parseLibibverbsName(name string) string {
	rest, ok := strings.CutPrefix(name, "libibverbs.so.1.")
	if !ok {
		return ""
	}
	parts := strings.Split(rest, ".")
	if len(parts) < 2 {
		return ""
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 32); err != nil {
			return ""
		}
	}
	return strings.Join(parts[1:], ".")
}

// parseStatusKB returns the bytes of a "Key:   N kB" line of
// /proc/PID/status or /proc/meminfo (proc(5)); 0 when the line is not
// there (a zombie's status has no Vm lines).
func parseStatusKB(data, key string) (uint64, error) {
	for line := range strings.SplitSeq(data, "\n") {
		rest, ok := strings.CutPrefix(line, key+":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%s: %q: want a number of kB", key, strings.TrimSpace(rest))
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || n > math.MaxUint64>>10 {
			return 0, fmt.Errorf("%s: %q is not a number of kB", key, f[0])
		}
		return n << 10, nil
	}
	return 0, nil
}

// MemTotal is the host's usable RAM in bytes (/proc/meminfo MemTotal):
// what every process's pinned memory together is measured against.
func (f *FS) MemTotal() (uint64, error) {
	s, err := f.read(f.procPath("meminfo"))
	if err != nil {
		return 0, fmt.Errorf("sysfsmon: memory total: %w", err)
	}
	n, err := parseStatusKB(s, "MemTotal")
	if err == nil && n == 0 {
		err = errors.New("no MemTotal line")
	}
	if err != nil {
		return 0, fmt.Errorf("sysfsmon: memory total: %s: %w", f.procPath("meminfo"), err)
	}
	return n, nil
}
