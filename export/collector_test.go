package export

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// exposition is the text format of everything c collects, without
// build_info (its Go version changes with the toolchain).
func exposition(t *testing.T, c prometheus.Collector) []byte {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
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

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./export -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("exposition differs from %s (go test ./export -update rewrites it):\n%s", path, got)
	}
}

func TestExpositionGolden(t *testing.T) {
	rts := recorded(t, "rc-rts")
	for _, tc := range []struct {
		name  string
		sysfs string
		c     func() *Collector
	}{
		{"rxe0-idle.prom", "rxe0", func() *Collector { return feed(Options{}, recorded(t, "idle")) }},
		// Two RC QPs in RTS; then one of them moves to ERR.
		{"rxe0-rc-err.prom", "rxe0", func() *Collector {
			return feed(Options{TopProcesses: 1}, rts, withState(rts, 18, 6))
		}},
		// The QPs go away: their groups stay, at 0.
		{"rxe0-after.prom", "rxe0", func() *Collector {
			return feed(Options{}, recorded(t, "rc-init"), withState(recorded(t, "rc-init"), 17, 3), recorded(t, "idle"))
		}},
		{"mlx5-sysfs.prom", "mlx5", func() *Collector { return NewCollector(Options{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c()
			c.ObserveSysfs(sysfsFixture(t, tc.sysfs))
			golden(t, tc.name, exposition(t, c))
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
