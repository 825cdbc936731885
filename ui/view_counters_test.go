package ui

import (
	"strings"
	"testing"
)

// ? (and enter) on a counter explains it from the registry; ? elsewhere
// is still the keys' help.
func TestCounterExplained(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 160, 48, true)
	m.Update(doctorFixture(t))
	m.Update(m.jumpMsg("counters"))
	// rxe0's rows are sorted by name: rcvd_rnr_err is the seventh.
	for range 6 {
		send(m, "down")
	}
	send(m, "?")
	out := screen(m)
	for _, want := range []string{"rcvd_rnr_err", "class", "retry, recoverable", "requester", "min_rnr_timer", "Source: drivers/infiniband/sw/rxe"} {
		if !strings.Contains(out, want) {
			t.Errorf("? on rcvd_rnr_err: the screen lacks %q:\n%s", want, out)
		}
	}
	send(m, "esc", "down", "down", "down", "down", "enter") // retry_exceeded_err
	out = screen(m)
	for _, want := range []string{"retry_exceeded_err", "terminal", "IBV_WC_RETRY_EXC_ERR"} {
		if !strings.Contains(out, want) {
			t.Errorf("enter on retry_exceeded_err: the screen lacks %q:\n%s", want, out)
		}
	}
	send(m, "esc")
	m.Update(m.jumpMsg("qp"))
	send(m, "?")
	if out := screen(m); strings.Contains(out, "min_rnr_timer") || !strings.Contains(strings.ToLower(out), "help") {
		t.Errorf("? on the qp view must open the help:\n%s", out)
	}
}
