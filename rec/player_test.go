package rec

import (
	"context"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// next takes the Player's next frame, failing after a while.
func next(t *testing.T, p *Player) inspect.Frame {
	t.Helper()
	select {
	case f := <-p.Frames():
		return f
	case <-time.After(10 * time.Second):
		t.Fatal("no frame from the Player")
	}
	return inspect.Frame{}
}

func qpState(f inspect.Frame, n uint32) (rdma.QPState, bool) {
	for _, q := range f.Snapshot.QPs {
		if q.LQPN == n {
			return q.State, true
		}
	}
	return 0, false
}

func TestPlayer(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 2}))
	ctx := context.Background()
	p, err := NewPlayer(ctx, r, t0.Add(1200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	f := next(t, p)
	if st, ok := qpState(f, 17); f.Err != nil || !ok || st != rdma.QPStateInit {
		t.Fatalf("at 1.2s: QP 17 %v %v (%v), want INIT (reading 2)", st, ok, f.Err)
	}
	if len(f.Update.Appeared) != 2 { // QP 17 and MR 2, against reading 1
		t.Errorf("appeared %+v, want QP 17 and MR 2", f.Update.Appeared)
	}
	select {
	case u := <-p.Updates():
		// The sysfs reading at or before reading 2 (1 s) is the first
		// (0.1 s): it has no rates, the next ones do.
		if len(u.Devices) != 1 || u.Counters == nil || len(u.Counters.Counters) != 5 || !u.Time.Equal(t0.Add(100*time.Millisecond)) {
			t.Errorf("sysfs reading %+v, want rxe0 with its five counters at 0.1 s", u)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no sysfs reading")
	}
	p.Step(1)
	f = next(t, p)
	if u := <-p.Updates(); len(u.CounterRates) != 5 || u.Interval != time.Second {
		t.Errorf("sysfs reading at 2 s: rates %+v over %s, want five over 1s", u.CounterRates, u.Interval)
	}
	if st, _ := qpState(f, 30); st != rdma.QPStateErr || len(f.Update.Failed) != 1 {
		t.Fatalf("reading 3: QP 30 %v, failed %+v; want ERR", st, f.Update.Failed)
	}
	h := f.History[inspect.Key{Kind: rdma.KindQP, Dev: "rxe0", ID: 30}]
	if len(h) != 2 || h[1].Modify == nil || h[1].Modify.PID != 400 || len(h[1].Modify.Attrs) != 1 || h[1].Modify.Attrs[0].Value != "ERR" {
		t.Errorf("QP 30's history %+v, want RTS then ERR by pid 400 with qp_state=ERR", h)
	}
	// Reading 4 only moves PSNs; the next event is QP 17 vanishing in 5.
	p.Event(1, nil)
	f = next(t, p)
	if _, ok := qpState(f, 17); ok || !f.Snapshot.Time.Equal(t0.Add(4*time.Second)) {
		t.Errorf("next event at %s with QP 17 %v, want reading 5 without it", f.Snapshot.Time, ok)
	}
	p.Event(-1, nil)
	if f = next(t, p); !f.Snapshot.Time.Equal(t0.Add(2 * time.Second)) {
		t.Errorf("previous event at %s, want reading 3 (the move to ERR)", f.Snapshot.Time)
	}
	p.Seek(t0.Add(3500 * time.Millisecond))
	if f = next(t, p); !f.Snapshot.Time.Equal(t0.Add(3 * time.Second)) {
		t.Errorf("seek to 3.5 s at %s, want reading 4 (3 s), the last before", f.Snapshot.Time)
	}
	p.Step(-10)
	if f = next(t, p); !f.Snapshot.Time.Equal(t0) {
		t.Errorf("ten back at %s, want the first reading", f.Snapshot.Time)
	}
	for range 6 {
		p.Faster()
	}
	p.TogglePlay()
	for f.Snapshot.Time.Before(t0.Add(4 * time.Second)) {
		f = next(t, p)
	}
	if st := p.Status(); st.Speed != maxSpeed || st.Index != 4 || st.Len != 5 {
		t.Errorf("status after playing %+v, want the last of 5 at %d×", st, maxSpeed)
	}
}

// TestPlayerEventFiltered: with a filter, `{` and `}` stop only at
// readings where something happened to an object the filter takes, as
// the dashboard's filter words select them.
func TestPlayerEventFiltered(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 2}))
	p, err := NewPlayer(context.Background(), r, t0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	next(t, p)
	where := func(kind rdma.Kind, words ...string) eventMatch {
		fs, err := view.ParseFilterWords(string(kind), words)
		if err != nil {
			t.Fatal(err)
		}
		return func(k rdma.Kind, row view.Row) bool { return k == kind && fs.Match(row) }
	}
	for _, step := range []struct {
		dir   int
		match eventMatch
		// stays: no such event, so the playback stays where it was and
		// no frame comes; one step on (commands run in order) shows
		// where it stayed.
		stays bool
		want  time.Duration // the reading landed on
	}{
		{+1, where(rdma.KindQP, "state=ERR"), false, 2 * time.Second},     // the victim's move to ERR, past the pingpong's appearing
		{+1, where(rdma.KindQP, "comm=pingpong"), false, 4 * time.Second}, // the pingpong's QP gone
		{-1, where(rdma.KindQP, "comm=victim"), false, 2 * time.Second},
		{-1, where(rdma.KindMR, "leaky"), false, time.Second}, // MR 2 registered (a plain word)
		{+1, where(rdma.KindQP, "comm=nobody"), true, 2 * time.Second},
		{+1, nil, false, 4 * time.Second},
	} {
		p.Event(step.dir, step.match)
		if step.stays {
			p.Step(1)
		}
		if f := next(t, p); !f.Snapshot.Time.Equal(t0.Add(step.want)) {
			t.Errorf("event(%d) landed at %s, want %s", step.dir, f.Snapshot.Time.Sub(t0), step.want)
		}
	}
}
