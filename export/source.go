package export

import (
	"context"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

// sysfsFullEvery is how many readings pass between two full ones of
// the exporter's sysfs Watcher: port states and counters are read every
// reading, the devices' facts every tenth, and a GID table (rxe's is
// 1,024 files: seconds under emulation, which at a short interval made
// every reading late) only when its port's state or the host's
// addresses change. A device that comes or goes is read at once.
const sysfsFullEvery = 10

// WatchSysfs feeds c the readings of a sysfsmon Watcher of fs: the
// devices with their ports, and every counters/ and hw_counters/ file,
// now and then every interval, until ctx ends. Every reading lists the
// devices, so a device that goes takes its series with it at the next
// reading, and one that comes shows at the next reading. also, when
// set, is handed every reading after c took it, with the IRQs on full
// readings (export --record's recording; the metrics have none); it
// must not block.
func (c *Collector) WatchSysfs(ctx context.Context, fs *sysfsmon.FS, interval time.Duration, also func(sysfsmon.Update)) {
	w := fs.Watch(ctx, sysfsmon.WatchOptions{Interval: interval, NoIRQs: also == nil, FullEvery: sysfsFullEvery})
	defer w.Close()
	for u := range w.Updates() {
		c.observeSysfs(u)
		if also != nil {
			also(u)
		}
	}
}
