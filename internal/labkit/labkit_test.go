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

// TestCPUBusy: the host's busy CPU time is read and does not go back.
func TestCPUBusy(t *testing.T) {
	a, err := cpuBusy()
	if err != nil || a <= 0 {
		t.Fatalf("cpuBusy: %v, %v; want a positive time", a, err)
	}
	if b, err := cpuBusy(); err != nil || b < a {
		t.Errorf("cpuBusy went from %v to %v (%v)", a, b, err)
	}
}
