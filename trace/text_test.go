package trace

import (
	"strings"
	"testing"
	"time"
)

// TestTextEscapesComm: the comm a traced process chose is quoted in
// the strace-like line, never written to the terminal raw.
func TestTextEscapesComm(t *testing.T) {
	e := &Event{Time: time.Date(2026, 1, 2, 12, 0, 1, 0, time.UTC), PID: 812, Comm: "\x1b[2Jx\xff", Dev: "rxe0", Verb: VerbDestroyCQ, ObjID: 3}
	got := e.Text()
	if !strings.HasPrefix(got, `12:00:01.000000 \x1b[2Jx\xff[812] `) || strings.ContainsRune(got, 0x1b) {
		t.Errorf("Text() = %q", got)
	}
}
