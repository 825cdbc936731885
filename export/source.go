package export

import (
	"context"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

// WatchSysfs feeds c the readings of a sysfsmon Watcher of fs: the
// devices with their ports, and every counters/ and hw_counters/ file,
// now and then every interval, until ctx ends. Every reading is whole
// (the devices' facts and GID tables too), so a device that goes takes
// its series with it at the next reading.
func (c *Collector) WatchSysfs(ctx context.Context, fs *sysfsmon.FS, interval time.Duration) {
	w := fs.Watch(ctx, sysfsmon.WatchOptions{Interval: interval, NoIRQs: true})
	defer w.Close()
	for u := range w.Updates() {
		c.ObserveSysfs(u)
	}
}
