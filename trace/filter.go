package trace

import (
	"fmt"
	"strconv"
	"strings"
)

// Filter keeps the events of one process, command, QP or device; zero
// fields match everything. All set fields must match.
type Filter struct {
	PID  int
	Comm string
	// QPN keeps the events of that QP number (HasQPN).
	QPN    uint32
	HasQPN bool
	Dev    string
}

// ParseFilter reads `verbscope trace`'s arguments: pid=N, comm=NAME,
// qpn=N (decimal or 0x hex) and dev=NAME, each at most once.
func ParseFilter(args []string) (Filter, error) {
	var f Filter
	seen := map[string]bool{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || v == "" {
			return Filter{}, fmt.Errorf("trace: filter %q: want NAME=VALUE, one of pid=N, comm=NAME, qpn=N, dev=NAME", a)
		}
		if seen[k] {
			return Filter{}, fmt.Errorf("trace: filter %q: %s is given twice; give each filter once", a, k)
		}
		seen[k] = true
		switch k {
		case "pid":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return Filter{}, fmt.Errorf("trace: filter %q: a pid is a positive number", a)
			}
			f.PID = n
		case "comm":
			f.Comm = v
		case "qpn":
			n, err := strconv.ParseUint(v, 0, 24)
			if err != nil {
				return Filter{}, fmt.Errorf("trace: filter %q: a QP number is 0 to 0xffffff: %w", a, err)
			}
			f.QPN, f.HasQPN = uint32(n), true
		case "dev":
			f.Dev = v
		default:
			return Filter{}, fmt.Errorf("trace: filter %q: unknown filter %q; the filters are pid=N, comm=NAME, qpn=N, dev=NAME", a, k)
		}
	}
	return f, nil
}

// match reports whether the event passes the filter. comm is compared
// with the kernel's comm, which is the first 15 bytes of the name.
func (f Filter) match(e *Event) bool {
	switch {
	case f.PID != 0 && e.PID != f.PID:
		return false
	case f.Comm != "" && e.Comm != truncComm(f.Comm):
		return false
	case f.HasQPN && (!e.HasQPN || e.QPN != f.QPN):
		return false
	case f.Dev != "" && e.Dev != f.Dev:
		return false
	}
	return true
}

// truncComm cuts a name to TASK_COMM_LEN-1 bytes, as the kernel stores it.
func truncComm(s string) string {
	if len(s) > 15 {
		return s[:15]
	}
	return s
}
