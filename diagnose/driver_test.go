package diagnose

import (
	"testing"

	"github.com/verbscope/verbscope/counters"
)

// The device's driver says what its counters mean: asked of
// Config.Driver once per device, as sysfs names it (a renamed device,
// rocep1s0f0, has no driver in its name).
func TestDriverNamesTheCounters(t *testing.T) {
	asked := 0
	d := New(Config{Driver: func(dev string) string {
		asked++
		return map[string]string{"rocep1s0f0": "mlx5", "rxe0": "rxe"}[dev]
	}})
	for _, tc := range []struct {
		dev, counter string
		want         counters.Signal
	}{
		{"rocep1s0f0", "rnr_nak_retry_err", counters.SignalRNR},
		{"rocep1s0f0", "rcvd_rnr_err", counters.SignalNone}, // rxe's name: not an mlx5 counter
		{"rxe0", "rcvd_rnr_err", counters.SignalRNR},
		{"rxe0", "completer_retry_err", counters.SignalTimeoutRetry},
	} {
		if got := d.signal(tc.dev, tc.counter); got != tc.want {
			t.Errorf("%s %s: signal %q, want %q", tc.dev, tc.counter, got, tc.want)
		}
	}
	if asked != 2 {
		t.Errorf("Config.Driver asked %d times for 2 devices, want 2", asked)
	}
	// Without Config.Driver: sysfs, which this host lacks, then the name.
	if got := New(Config{}).driver("mlx5_0"); got != "mlx5" {
		t.Errorf("the default driver of mlx5_0 is %q, want mlx5", got)
	}
}
