package export

import (
	"sort"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verbscope/verbscope/sysfsmon"
)

// kmsgKey is a label set of verbscope_kernel_log_messages_total: the
// driver or module (a fixed list, sysfsmon's rdmaDriver) and the level.
type kmsgKey struct{ driver, level string }

// observeKernelLine counts one line an RDMA driver or module wrote to
// the kernel log.
func (c *Collector) observeKernelLine(l sysfsmon.KernelLine) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kmsg == nil {
		c.kmsg = map[kmsgKey]uint64{}
	}
	c.kmsg[kmsgKey{l.Driver, l.LevelName()}]++
}

// collectKernelLog sends the counts by driver and level.
func (c *Collector) collectKernelLog(ch chan<- prometheus.Metric) {
	if !c.kmsgOn {
		return
	}
	keys := make([]kmsgKey, 0, len(c.kmsg))
	for k := range c.kmsg {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return strings.Compare(keys[i].driver+"\x00"+keys[i].level, keys[j].driver+"\x00"+keys[j].level) < 0
	})
	for _, k := range keys {
		ch <- counter(descKernelLog, float64(c.kmsg[k]), k.driver, k.level)
	}
}
