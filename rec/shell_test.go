package rec

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/shell/transcript"
)

func shellTexts(ls []transcript.Line) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Kind+" "+l.Text)
	}
	return out
}

// TestShellRoundTrip: the shell's lines, read from its transcript at
// each reading (the damaged one skipped), come back up to a time, with
// their process and face; a schema 2 file has none.
func TestShellRoundTrip(t *testing.T) {
	path := record(t, WriterOptions{KeyEvery: 2})
	r := openT(t, path)
	ctx := context.Background()
	for _, tc := range []struct {
		at   time.Duration
		want []string
	}{
		{100 * time.Millisecond, nil},
		{time.Second, []string{"in open", "out opened rxe0"}},
		{1450 * time.Millisecond, []string{"in open", "out opened rxe0", "in modify qp1 err"}},
		{time.Hour, []string{"in open", "out opened rxe0", "in modify qp1 err", "out qp1: RTS → ERR"}},
	} {
		got, err := r.shell(ctx, t0.Add(tc.at))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, shellTexts(got)); diff != "" {
			t.Errorf("up to %s (-want +got):\n%s", tc.at, diff)
		}
		for _, l := range got {
			if l.PID != 400 || l.Face != "script" || l.Time.After(t0.Add(tc.at)) {
				t.Errorf("line %+v: want pid 400's script, by %s", l, tc.at)
			}
		}
	}
	// The lines belong to the reading that read them: the open to the
	// second reading of the objects (seq 3, after two readings).
	var seq int64
	if err := r.db.QueryRowContext(ctx, "SELECT seq FROM shell WHERE text = 'open'").Scan(&seq); err != nil || seq != 3 {
		t.Errorf("the open's seq %d (%v), want 3", seq, err)
	}
	r.Close()

	old := record(t, WriterOptions{})
	if err := setVersion(old, 2); err != nil {
		t.Fatal(err)
	}
	if got, err := openT(t, old).shell(ctx, t0.Add(time.Hour)); err != nil || got != nil {
		t.Errorf("a schema 2 file: %v, %v; want no lines", got, err)
	}
}

// TestShellPruned: pruning drops the shell's lines with their readings.
func TestShellPruned(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 2, Retain: 2500 * time.Millisecond}))
	got, err := r.shell(context.Background(), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// The readings before 2 s went, and the open read at 1 s with them.
	if diff := cmp.Diff([]string{"in modify qp1 err", "out qp1: RTS → ERR"}, shellTexts(got)); diff != "" {
		t.Errorf("after pruning (-want +got):\n%s", diff)
	}
}

// TestPlayerShell: the Player sends the shell's lines up to each
// reading it shows.
func TestPlayerShell(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 2}))
	p, err := NewPlayer(context.Background(), r, t0.Add(1200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	take := func() []string {
		t.Helper()
		select {
		case ls := <-p.Shell():
			return shellTexts(ls)
		case <-time.After(10 * time.Second):
			t.Fatal("no shell lines from the Player")
		}
		return nil
	}
	if diff := cmp.Diff([]string{"in open", "out opened rxe0"}, take()); diff != "" {
		t.Errorf("at reading 2 (-want +got):\n%s", diff)
	}
	p.Step(1)
	if got := take(); len(got) != 4 {
		t.Errorf("at reading 3: %q, want the move to ERR and its answer too", got)
	}
	p.Step(-2)
	if got := take(); len(got) != 0 {
		t.Errorf("at reading 1: %q, want none", got)
	}
}

// TestPlayerShellUpToReadingEnd: a reading shows the shell's lines up to
// its end, not its start: the command typed while it ran (whose effect
// its dump may hold) is there, the answer after it is not.
func TestPlayerShellUpToReadingEnd(t *testing.T) {
	fs := frames()
	fs[1].Snapshot.Took = 450 * time.Millisecond // began at 1 s: the modify typed at 1.4 s is inside it
	r := openT(t, recordFrames(t, WriterOptions{KeyEvery: 2}, fs))
	p, err := NewPlayer(context.Background(), r, t0.Add(1200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	select {
	case ls := <-p.Shell():
		if diff := cmp.Diff([]string{"in open", "out opened rxe0", "in modify qp1 err"}, shellTexts(ls)); diff != "" {
			t.Errorf("at reading 2, 1 s to 1.45 s (-want +got):\n%s", diff)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no shell lines from the Player")
	}
}
