package export

import (
	"bytes"
	"github.com/charmbracelet/x/exp/golden"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// gather is one scrape of c through a pedantic registry, which refuses
// inconsistent or duplicate series.
func gather(t testing.TB, c prometheus.Collector) []*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	return mfs
}

// exposition is the text format of everything c collects, without
// build_info (its Go version changes with the toolchain).
func exposition(t *testing.T, c prometheus.Collector) []byte {
	t.Helper()
	mfs := gather(t, c)
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if mf.GetName() == "verbscope_build_info" {
			continue
		}
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func TestExpositionGolden(t *testing.T) {
	rts := recorded(t, "rc-rts")
	for _, tc := range []struct {
		name  string
		sysfs string
		c     func() *Collector
	}{
		{"rxe0-idle", "rxe0", func() *Collector { return feed(Options{}, recorded(t, "idle")) }},
		// Two RC QPs in RTS; then one of them moves to ERR.
		{"rxe0-rc-err", "rxe0", func() *Collector {
			return feed(Options{TopProcesses: 1, TopOwners: 2, Owners: placeLookup(rts, 1<<20)}, rts, withState(rts, 18, 6))
		}},
		// The QPs go away: their groups stay, at 0.
		{"rxe0-after", "rxe0", func() *Collector {
			return feed(Options{}, recorded(t, "rc-init"), withState(recorded(t, "rc-init"), 17, 3), recorded(t, "idle"))
		}},
		{"mlx5-sysfs", "mlx5", func() *Collector { c, _ := newTestCollector(Options{}); return c }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c()
			c.observeSysfs(sysfsFixture(t, tc.sysfs))
			// testdata/TestExpositionGolden/NAME.golden; -update rewrites it.
			golden.RequireEqual(t, exposition(t, c))
			problems, err := testutil.CollectAndLint(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("promlint: %s: %s", p.Metric, p.Text)
			}
		})
	}
}
