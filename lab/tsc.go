package lab

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// Under TCG the guest's TSC is the host's, read through qemu, but the
// guest kernel measures its frequency at boot against the emulated PIT or
// HPET. On a loaded host the vCPU is descheduled in the middle of that
// measurement: the PIT calibration fails and the HPET one can be far off.
// Seen here: a guest at load 26 on 2 cores counted 613 s of uptime in 66 s
// of real time, so its sleeps and timeouts ran 9x short and its watchdog
// reported soft lockups that were not. When the host knows its own TSC
// frequency, the guest is told it (tsc_early_khz) and measures nothing.

// hostTSCkHz is the host's TSC frequency in kHz from /proc/cpuinfo, when
// the host's kernel says it is known and constant (flags tsc_known_freq,
// constant_tsc); 0 otherwise.
func hostTSCkHz() int {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	return parseTSCkHz(bufio.NewScanner(f))
}

func parseTSCkHz(sc *bufio.Scanner) int {
	var mhz float64
	var known, constant bool
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "cpu MHz":
			if mhz == 0 {
				mhz, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			}
		case "flags":
			for _, fl := range strings.Fields(v) {
				known = known || fl == "tsc_known_freq"
				constant = constant || fl == "constant_tsc"
			}
		case "processor":
			if strings.TrimSpace(v) != "0" { // the first CPU says it all
				return tscKHz(mhz, known, constant)
			}
		}
	}
	return tscKHz(mhz, known, constant)
}

func tscKHz(mhz float64, known, constant bool) int {
	if !known || !constant || mhz <= 0 {
		return 0
	}
	return int(mhz*1000 + 0.5)
}
