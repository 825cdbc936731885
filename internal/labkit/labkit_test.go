package labkit

import (
	"testing"
	"time"
)

func TestPollPause(t *testing.T) {
	for _, tc := range []struct{ took, want time.Duration }{
		{0, 20 * time.Millisecond},
		{5 * time.Millisecond, 20 * time.Millisecond},
		{30 * time.Millisecond, 60 * time.Millisecond},
		{400 * time.Millisecond, 800 * time.Millisecond},
		{3 * time.Second, time.Second},
	} {
		if got := pollPause(tc.took); got != tc.want {
			t.Errorf("pollPause(%v) = %v, want %v", tc.took, got, tc.want)
		}
	}
}

func TestParseCPUBusy(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want time.Duration
		bad  bool
	}{
		// user nice system idle iowait irq softirq steal guest guest_nice
		{stat: "cpu  100 2 30 5000 7 1 4 0 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n", want: 1370 * time.Millisecond},
		{stat: "cpu  100 0 50 900 10\n", want: 1500 * time.Millisecond},
		{stat: "cpu0 1 2 3 4 5\n", bad: true},
		{stat: "cpu  1 x 3 4 5\n", bad: true},
		{stat: "", bad: true},
	} {
		got, err := parseCPUBusy(tc.stat)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("parseCPUBusy(%q) = %v, %v; want %v, error %v", tc.stat, got, err, tc.want, tc.bad)
		}
	}
}
