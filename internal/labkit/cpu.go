package labkit

import (
	"time"

	"github.com/prometheus/procfs"
)

// busyLog starts the line Clean logs with the CPU time the guest spent
// over a test; lab/labtest reads it.
const busyLog = "labkit: the guest's CPUs were busy"

// cpuBusy is the CPU time all of the host's CPUs have spent busy since
// boot: /proc/stat's cpu total (proc(5), read by procfs) less its idle
// and iowait (guest time is counted in user already).
func cpuBusy() (time.Duration, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, err
	}
	st, err := fs.Stat()
	if err != nil {
		return 0, err
	}
	c := st.CPUTotal
	busy := c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ + c.Steal
	return time.Duration(busy * float64(time.Second)), nil
}
