package export

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/verbscope/verbscope/sysfsmon"
)

func TestKernelLogCounts(t *testing.T) {
	c := feed(Options{}, recorded(t, "idle"))
	if n := testutil.CollectAndCount(c, "verbscope_kernel_log_messages_total"); n != 0 {
		t.Errorf("%d kernel log series before the log is read", n)
	}
	c.kmsgOn = true // what Follow sets once it reads the kernel log's feed
	for _, l := range []sysfsmon.KernelLine{{Driver: "rdma_rxe", Level: 6}, {Driver: "rdma_rxe", Level: 6}, {Driver: "mlx5_core", Level: 3}} {
		c.observeKernelLine(l)
	}
	want := `# HELP verbscope_kernel_log_messages_total Lines RDMA drivers and modules wrote to the kernel log (/dev/kmsg; what its ring still held when the exporter started, then each new one), by driver or module and syslog level. Absent without the privilege to read it (root or CAP_SYSLOG).
# TYPE verbscope_kernel_log_messages_total counter
verbscope_kernel_log_messages_total{driver="mlx5_core",level="err"} 1
verbscope_kernel_log_messages_total{driver="rdma_rxe",level="info"} 2
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "verbscope_kernel_log_messages_total"); err != nil {
		t.Error(err)
	}
}
