package export

import (
	"context"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

// SysfsReading is one reading of /sys/class/infiniband: the devices with
// their ports, and every counters/ and hw_counters/ file.
type SysfsReading struct {
	Devices      []sysfsmon.Device
	DevicesErr   error
	DevicesTook  time.Duration
	Counters     *sysfsmon.CounterSnapshot
	CountersErr  error
	CountersTook time.Duration
}

// ReadSysfs reads the devices and the counters once, timing each.
func ReadSysfs(fs *sysfsmon.FS) SysfsReading {
	var r SysfsReading
	t0 := time.Now()
	r.Devices, r.DevicesErr = fs.Devices()
	t1 := time.Now()
	r.Counters, r.CountersErr = fs.Counters()
	r.DevicesTook, r.CountersTook = t1.Sub(t0), time.Since(t1)
	return r
}

// PollSysfs feeds c a reading of fs now and then every interval, until
// ctx ends.
func (c *Collector) PollSysfs(ctx context.Context, fs *sysfsmon.FS, interval time.Duration) {
	t := time.NewTicker(max(interval, sysfsmon.MinPollInterval))
	defer t.Stop()
	for {
		c.ObserveSysfs(ReadSysfs(fs))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
