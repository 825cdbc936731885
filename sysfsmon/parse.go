package sysfsmon

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// The parsers in this file take the text of one sysfs or procfs file. The
// text is outside input: each returns an error on nonsense and never
// panics, which their fuzz targets check.

// maxCPUs bounds the CPU numbers a list or mask may name, so a hostile
// "0-4294967295" cannot allocate gigabytes. The kernel's NR_CPUS is at
// most 8192 on every distribution kernel.
const maxCPUs = 1 << 16

// parseState splits a numbered sysfs state such as ports/N/state
// ("4: ACTIVE"), ports/N/phys_state ("5: LinkUp") or node_type ("1: CA")
// into its number and name (Documentation/ABI/stable/sysfs-class-infiniband).
func parseState(s string) (int, string, error) {
	num, name, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return 0, "", fmt.Errorf("state %q: want \"N: NAME\"", s)
	}
	n, err := strconv.Atoi(strings.TrimSpace(num))
	if err != nil || n < 0 {
		return 0, "", fmt.Errorf("state %q: %q is not a state number", s, num)
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return 0, "", fmt.Errorf("state %q: no name after the number", s)
	}
	return n, name, nil
}

// Rate is ports/N/rate parsed: "10 Gb/sec (1X FDR10)" is 10 Gb/s over one
// lane of FDR10 (Documentation/ABI/stable/sysfs-class-infiniband; the
// kernel's rate_show prints speed names SDR..XDR, or none for SDR on older
// kernels).
type Rate struct {
	Gbps  float64 `json:"rate_gbps"` // the data rate of all lanes together
	Width string  `json:"width"`     // lanes: "1X", "2X", "4X", "8X", "12X"
	Speed string  `json:"speed"`     // per-lane signalling: "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"; "" when not printed
}

// parseRate parses ports/N/rate ("10 Gb/sec (1X FDR10)", "2.5 Gb/sec (1X)").
func parseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	num, rest, ok := strings.Cut(s, " Gb/sec (")
	if !ok || !strings.HasSuffix(rest, ")") {
		return Rate{}, fmt.Errorf("rate %q: want \"N Gb/sec (WX SPEED)\"", s)
	}
	g, err := strconv.ParseFloat(num, 64)
	if err != nil || g < 0 || g != g || g > 1e6 {
		return Rate{}, fmt.Errorf("rate %q: %q is not a rate in Gb/sec", s, num)
	}
	fields := strings.Fields(strings.TrimSuffix(rest, ")"))
	if len(fields) == 0 || len(fields) > 2 {
		return Rate{}, fmt.Errorf("rate %q: want a width and an optional speed in parentheses", s)
	}
	w := fields[0]
	if n, err := strconv.Atoi(strings.TrimSuffix(w, "X")); err != nil || !strings.HasSuffix(w, "X") || n <= 0 {
		return Rate{}, fmt.Errorf("rate %q: width %q is not like 4X", s, w)
	}
	r := Rate{Gbps: g, Width: w}
	if len(fields) == 2 {
		r.Speed = fields[1]
	}
	return r, nil
}

// parseGID parses a GID as sysfs prints it in ports/N/gids/I: eight groups
// of four hex digits, "fe80:0000:0000:0000:bc8a:ccff:fe52:0a47".
func parseGID(s string) (netip.Addr, error) {
	s = strings.TrimSpace(s)
	groups := strings.Split(s, ":")
	if len(groups) != 8 {
		return netip.Addr{}, fmt.Errorf("gid %q: want 8 groups of 4 hex digits", s)
	}
	var b [16]byte
	for i, g := range groups {
		if len(g) != 4 {
			return netip.Addr{}, fmt.Errorf("gid %q: group %q is not 4 hex digits", s, g)
		}
		v, err := strconv.ParseUint(g, 16, 16)
		if err != nil {
			return netip.Addr{}, fmt.Errorf("gid %q: group %q is not hex", s, g)
		}
		b[2*i], b[2*i+1] = byte(v>>8), byte(v)
	}
	return netip.AddrFrom16(b), nil
}

// parseCPUList parses a CPU list such as /proc/irq/N/smp_affinity_list or
// effective_affinity_list ("0-3,8"; Documentation/core-api/irq/
// irq-affinity.rst, the "%*pbl" format). An empty list is no CPUs.
func parseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := cpuNumber(lo)
		if err != nil {
			return nil, fmt.Errorf("cpu list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = cpuNumber(hi); err != nil {
				return nil, fmt.Errorf("cpu list %q: %w", s, err)
			}
			if b < a {
				return nil, fmt.Errorf("cpu list %q: range %q runs backwards", s, part)
			}
		}
		if len(cpus)+b-a+1 > maxCPUs {
			return nil, fmt.Errorf("cpu list %q: more than %d CPUs", s, maxCPUs)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

func cpuNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= maxCPUs {
		return 0, fmt.Errorf("%q is not a CPU number", s)
	}
	return n, nil
}

// parseCPUMask parses a hex CPU mask such as /proc/irq/N/smp_affinity or
// affinity_hint: comma-separated 32-bit words, most significant first
// ("ff,00000001" is CPUs 0 and 32-39; Documentation/core-api/irq/
// irq-affinity.rst). It returns the CPUs set, lowest first.
func parseCPUMask(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("cpu mask: empty")
	}
	words := strings.Split(s, ",")
	if len(words)*32 > maxCPUs {
		return nil, fmt.Errorf("cpu mask %q: more than %d CPUs", s, maxCPUs)
	}
	var cpus []int
	for i := len(words) - 1; i >= 0; i-- {
		w := words[i]
		if len(w) == 0 || len(w) > 8 {
			return nil, fmt.Errorf("cpu mask %q: word %q is not 1-8 hex digits", s, w)
		}
		v, err := strconv.ParseUint(w, 16, 32)
		if err != nil {
			return nil, fmt.Errorf("cpu mask %q: word %q is not hex", s, w)
		}
		base := (len(words) - 1 - i) * 32
		for bit := 0; bit < 32; bit++ {
			if v&(1<<bit) != 0 {
				cpus = append(cpus, base+bit)
			}
		}
	}
	return cpus, nil
}

// formatCPUList prints CPUs as the kernel's lists do ("0-3,8"), the
// inverse of parseCPUList for sorted input.
func formatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

// IsErrorCounter reports whether a counters/ or hw_counters/ file counts
// trouble rather than traffic or retries, for a caller that does not know
// the device's driver: counterAlarming with no driver. A name the
// registry does not know, or one its drivers mean differently, is not
// marked.
func IsErrorCounter(name string) bool { return counterAlarming("", name) }
