package shell

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/verbs"
)

// These run without a device (the build host has no RDMA): what the
// Engine promises regardless of objects.

func TestStateSnapshots(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	first := s.State()
	if first.PID != os.Getpid() || first.Running != "" || first.Len() != 0 || first.Seq == 0 {
		t.Fatalf("a new session's state: %+v", first)
	}
	if _, err := s.Exec(context.Background(), "help"); err != nil {
		t.Fatal(err)
	}
	after := s.State()
	if after.Seq <= first.Seq || after.Running != "" {
		t.Errorf("after a command: seq %d (was %d), running %q", after.Seq, first.Seq, after.Running)
	}
	// A refused command publishes too: its state is the truth after it.
	s.Exec(context.Background(), "pd")
	if again := s.State(); again.Seq <= after.Seq {
		t.Errorf("after a refused command: seq %d, want more than %d", again.Seq, after.Seq)
	}
}

func TestCloseEndsTheSession(t *testing.T) {
	s := New(Options{})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, ok := <-s.Events(); ok {
		t.Error("Events still open after Close")
	}
	_, err := s.Exec(context.Background(), "help")
	var se *Error
	if !errors.As(err, &se) || se.What != "the session is closed" {
		t.Errorf("Exec after Close: %v", err)
	}
}

// TestEventsNeverBlock fills the event channel well past its buffer with
// nobody reading: the shell must not block, and the newest events stay.
func TestEventsNeverBlock(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	for i := 0; i < eventBuffer*3; i++ {
		s.progress("qp1", "step %d", i)
	}
	if n := len(s.Events()); n != eventBuffer {
		t.Fatalf("%d events wait, want the buffer full (%d)", n, eventBuffer)
	}
	ev := <-s.Events()
	if want := "step 512"; ev.Text != want || ev.Kind != front.EventProgress || ev.Object != "qp1" || ev.Time.IsZero() {
		t.Errorf("oldest kept event %+v, want %q (the oldest dropped)", ev, want)
	}
}

// TestRefusalsAreStructured: what, why and fix stay apart, so a pane can
// lay them out; none is a bare fmt error.
func TestRefusalsAreStructured(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	for _, tc := range []struct {
		line      string
		what, fix string
	}{
		{`write mr1 "open`, `unterminated " quote`, `close it, or escape it with \`},
		{"bogus", `unknown command "bogus"`, "`help` lists the commands"},
		{"ls extra", `ls takes at most 0 argument(s); "extra" is one too many`, "usage: ls   (help ls shows examples)"},
		{"doctor nope", `no check "nope"; the checks are modules, devices, rdma-core, uverbs-perms, ports, gids, memlock, mr-qp, irqs, leaks, limits, growth`, "`help doctor` lists the checks"},
	} {
		_, err := s.Exec(context.Background(), tc.line)
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%q: %T %v, want *Error", tc.line, err, err)
			continue
		}
		if se.What != tc.what || se.Fix != tc.fix {
			t.Errorf("%q: what %q fix %q; want %q and %q", tc.line, se.What, se.Fix, tc.what, tc.fix)
		}
	}
	a := &args{kv: map[string]string{"size": "abc", "n": "99"}, used: map[string]bool{}}
	for key, want := range map[string]front.Error{
		"size": {What: "size=abc is not a number", Fix: "write it in decimal or as 0x…"},
		"n":    {What: "n=99 is too large", Fix: "at most 10"},
	} {
		_, err := a.uint(key, 0, 10)
		var se *Error
		if !errors.As(err, &se) || se.What != want.What || se.Fix != want.Fix {
			t.Errorf("uint(%s): %#v, want %#v", key, err, want)
		}
	}
}

// TestLibraryHintIsTheWhy: a verbs failure's hint is kept apart from
// what failed. On the build host open fails (no RDMA: ENOSYS, or no
// libibverbs in a !cgo build) and the library's hint says what to do.
func TestLibraryHintIsTheWhy(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	_, err := s.Exec(context.Background(), "open")
	var se *Error
	var ve *verbs.Error
	if !errors.As(err, &se) || !errors.As(err, &ve) {
		t.Fatalf("open on a host without RDMA: %T %v, want a *shell.Error over a *verbs.Error", err, err)
	}
	if !strings.HasPrefix(se.What, "open: no device to open: ibv_get_device_list: ") || se.Why != ve.Hint || ve.Hint == "" ||
		strings.Contains(se.What, ve.Hint) {
		t.Errorf("what %q why %q; the library's hint %q", se.What, se.Why, ve.Hint)
	}
}
