package labkit

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// busyLog starts the line Clean logs with the CPU time the guest spent
// over a test; lab/labtest reads it.
const busyLog = "labkit: the guest's CPUs were busy"

// cpuBusy is the CPU time all of the host's CPUs have spent busy since
// boot: the first line of /proc/stat (proc(5)) less its idle and iowait,
// in USER_HZ ticks (100 a second on Linux's ABI).
func cpuBusy() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return parseCPUBusy(string(b))
}

func parseCPUBusy(stat string) (time.Duration, error) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: first line %q is not the cpu total", line)
	}
	var busy uint64
	// user nice system idle iowait irq softirq steal (guest time is
	// counted in user already).
	for i, v := range f[1:min(len(f), 9)] {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: cpu field %d: %w", i+1, err)
		}
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return time.Duration(busy) * (time.Second / 100), nil
}
