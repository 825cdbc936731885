package export

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// manyQPs returns the rc-rts recording with n RC QPs: its user QP copied
// under new numbers, a tenth of them in ERR, the kind of host where
// per-QP labels would explode.
func manyQPs(t testing.TB, n int) *inspect.Snapshot {
	s := recorded(t, "rc-rts")
	var user inspect.QP
	for _, q := range s.QPs {
		if q.Type == rdma.QPTypeRC {
			user = q
		}
	}
	for i := 0; i < n; i++ {
		q := user
		q.LQPN, q.PID, q.TGID, q.Comm = uint32(1000+i), uint32(2000+i%500), uint32(2000+i%500), fmt.Sprintf("job%d", i%500)
		if i%10 == 0 {
			q.State = rdma.QPStateErr
		}
		s.QPs = append(s.QPs, q)
	}
	s.MarkChanged(rdma.KindQP)
	return s
}

func gatherCount(t testing.TB, c *Collector) int {
	n := 0
	for _, mf := range gather(t, c) {
		n += len(mf.GetMetric())
	}
	return n
}

// TestSeriesBounded: 10,000 QPs of 500 processes give the same few series
// as three, by default and with the top 5 processes.
func TestSeriesBounded(t *testing.T) {
	for _, top := range []int{0, 5} {
		small := feed(Options{TopProcesses: top}, recorded(t, "rc-rts"))
		big := feed(Options{TopProcesses: top}, manyQPs(t, 10000))
		sys := sysfsFixture(t, "rxe0")
		small.observeSysfs(sys)
		big.observeSysfs(sys)
		ns, nb := gatherCount(t, small), gatherCount(t, big)
		if nb >= 500 || nb > ns+top*7+7 {
			t.Errorf("top %d: %d series with 10,000 QPs, %d with 3: want under 500 and only the folded process series more", top, nb, ns)
		}
		t.Logf("top %d: %d series with 3 QPs, %d with 10,000", top, ns, nb)
	}
}

// BenchmarkScrape10kQPs: one scrape (Collect and encode-ready gather) of
// a host with 10,000 QPs; the reading itself is the watch loop's.
func BenchmarkScrape10kQPs(b *testing.B) {
	c := feed(Options{}, manyQPs(b, 10000))
	c.observeSysfs(sysfsFixture(b, "rxe0"))
	benchGather(b, c)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(gatherCount(b, c)), "series")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MiB-heap")
}

// benchGather times b.N scrapes of c through a pedantic registry (the
// unit and the lab benchmarks alike).
func benchGather(b *testing.B, c prometheus.Collector) {
	b.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
}
