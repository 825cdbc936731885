package trace

import (
	"strings"
	"testing"
)

func TestLostText(t *testing.T) {
	s := lostText(12, 3, " so far")
	for _, want := range []string{"trace: 12 events lost so far: the kernel's ring buffer was full", "3 records skipped so far: they did not decode"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
	if s := lostText(0, 1, " in all"); strings.Contains(s, "events lost") {
		t.Errorf("nothing dropped, yet: %q", s)
	}
}
