package rec

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/pace"
	"github.com/verbscope/verbscope/shell/transcript"
	"github.com/verbscope/verbscope/sysfsmon"
)

// maxSpeed is the fastest a Player plays: 64 recorded seconds a second.
const maxSpeed = 64

// Player plays a recording back as the dashboard's two streams, one
// reading of the objects at a time with the sysfs reading of that
// moment: the same frames the live watchers deliver, rebuilt from the
// file. Its controls return at once (the dashboard calls them from its
// Update); the rebuilding runs on the Player's goroutine.
type Player struct {
	r      *Reader
	res    []Reading
	sys    []Reading
	frames chan inspect.Frame
	sysOut chan sysfsmon.Update
	shell  chan []transcript.Line
	verd   chan Verdicts
	cmds   chan func(*playState)
	stop   context.CancelFunc
	done   chan struct{}

	// cache, tr and lastSeq are the Player goroutine's: the objects
	// rebuilt so far, and the Tracker that saw lastSeq, the reading
	// shown last.
	cache   snapCache
	hist    histCache
	tr      *inspect.Tracker
	lastSeq int64

	mu  sync.Mutex
	now PlayStatus
}

// PlayStatus is where a Player is, for the dashboard's header.
type PlayStatus struct {
	Time       time.Time // the reading shown
	Index, Len int       // its place among the readings
	Playing    bool
	Speed      int
}

type playState struct {
	pos     int
	playing bool
	speed   int
}

// NewPlayer starts playing r from the reading at or before at (the
// first reading when at is zero), paused. Close stops it.
func NewPlayer(ctx context.Context, r *Reader, at time.Time) (*Player, error) {
	res, err := r.Readings(ctx, "res")
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, errors.Join(ErrNoReading, errors.New("the recording has no complete reading of the objects"))
	}
	sys, err := r.Readings(ctx, "sys")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &Player{r: r, res: res, sys: sys, frames: make(chan inspect.Frame, 1), sysOut: make(chan sysfsmon.Update, 1),
		shell: make(chan []transcript.Line, 1), verd: make(chan Verdicts, 1), cmds: make(chan func(*playState), 16), stop: cancel, done: make(chan struct{}), cache: snapCache{r: r}, hist: histCache{r: r}}
	st := playState{pos: p.index(at), speed: 1}
	go p.run(ctx, st)
	return p, nil
}

// index is the reading at or before t.
func (p *Player) index(t time.Time) int {
	if t.IsZero() {
		return 0
	}
	i := sort.Search(len(p.res), func(i int) bool { return p.res[i].Time.After(t) })
	return max(i-1, 0)
}

// Frames and Updates are the streams (ui.Sources.Res and Sys).
func (p *Player) Frames() <-chan inspect.Frame    { return p.frames }
func (p *Player) Updates() <-chan sysfsmon.Update { return p.sysOut }

// Shell delivers, with each reading, what the verbs shells entered and
// answered up to its time (Reader.shell), for the dashboard's pane.
func (p *Player) Shell() <-chan []transcript.Line { return p.shell }

// Verdicts delivers, with each reading, the diagnosis's verdicts as
// they stood then (Reader.verdictsAt).
func (p *Player) Verdicts() <-chan Verdicts { return p.verd }

// Status says where the Player is.
func (p *Player) Status() PlayStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.now
}

// Step moves n readings (back when negative) and pauses.
func (p *Player) Step(n int) {
	p.send(func(s *playState) { s.pos, s.playing = clamp(s.pos+n, len(p.res)), false })
}

// Event moves to the next (dir > 0) or previous reading where
// something happened: an object appeared or vanished, a QP changed
// state, an alert began or ended; with match, only to one where that
// happened to an object match takes (the dashboard's filter).
func (p *Player) Event(dir int, match eventMatch) {
	p.send(func(s *playState) {
		if i, ok := p.event(s.pos, dir, match); ok {
			s.pos, s.playing = i, false
		}
	})
}

// Seek moves to the reading at or before t, and pauses.
func (p *Player) Seek(t time.Time) {
	p.send(func(s *playState) { s.pos, s.playing = p.index(t), false })
}

// TogglePlay plays or pauses.
func (p *Player) TogglePlay() { p.send(func(s *playState) { s.playing = !s.playing }) }

// Faster doubles the speed, up to 64×.
func (p *Player) Faster() { p.send(func(s *playState) { s.speed = min(s.speed*2, maxSpeed) }) }

// Slower halves the speed, down to 1×.
func (p *Player) Slower() { p.send(func(s *playState) { s.speed = max(s.speed/2, 1) }) }

// Close stops the Player and closes its streams.
func (p *Player) Close() {
	p.stop()
	<-p.done
}

func (p *Player) send(fn func(*playState)) {
	select {
	case p.cmds <- fn:
	default: // keys faster than frames: the extra ones are dropped
	}
}

func clamp(i, n int) int { return min(max(i, 0), n-1) }

// run is the Player's goroutine: it delivers the reading at the
// position after every move, and steps on while playing, at the
// recording's own pace divided by the speed.
func (p *Player) run(ctx context.Context, st playState) {
	defer close(p.done)
	defer close(p.frames)
	defer close(p.sysOut)
	defer close(p.shell)
	defer close(p.verd)
	shown := -1
	for {
		st.playing = st.playing && st.pos+1 < len(p.res)
		// The status first: whoever takes the frame sees its status.
		p.mu.Lock()
		p.now = PlayStatus{Time: p.res[st.pos].Time, Index: st.pos, Len: len(p.res), Playing: st.playing, Speed: st.speed}
		p.mu.Unlock()
		if st.pos != shown {
			p.deliver(ctx, st.pos)
			shown = st.pos
		}
		var tick <-chan time.Time
		if st.playing {
			tick = time.After(p.res[st.pos+1].Time.Sub(p.res[st.pos].Time) / time.Duration(st.speed))
		}
		select {
		case <-ctx.Done():
			return
		case fn := <-p.cmds:
			fn(&st)
		case <-tick:
			st.pos++
		}
	}
}

// deliver sends reading i's frame, its moment's sysfs reading and the
// shells' lines up to its end, replacing any not yet taken. Up to its
// end, not its start: a command the reading saw the effect of (a QP the
// dump found in ERR) may have been typed after the reading began, and
// the pane must not show the QP in ERR without the command that put it
// there (a lab run caught it so).
func (p *Player) deliver(ctx context.Context, i int) {
	f := p.frame(ctx, i)
	pace.Deliver(p.frames, f)
	if u, ok := p.sysAt(ctx, p.res[i].Time); ok {
		pace.Deliver(p.sysOut, u)
	}
	if lines, err := p.r.shell(ctx, p.res[i].Time.Add(p.res[i].Took)); err == nil {
		pace.Deliver(p.shell, lines)
	}
	if vs, err := p.r.verdictsAt(ctx, p.res[i].Seq); err == nil {
		pace.Deliver(p.verd, Verdicts{Seq: f.Seq, Time: p.res[i].Time, List: vs})
	}
}

// frame rebuilds reading i as inspect's watch made it: the snapshot, a
// Tracker's report on it against the reading before (what appeared,
// vanished, changed state, failed), and the QP histories with their
// traced modifies. The histories are read on a goroutine of their own
// (the Reader has a connection for each), while the objects are
// rebuilt: on a jump, each is a good part of the wait.
func (p *Player) frame(ctx context.Context, i int) inspect.Frame {
	rd := p.res[i]
	f := inspect.Frame{Seq: uint64(i + 1)}
	if rd.Err != "" {
		f.Err = errors.New(rd.Err)
		return f
	}
	type histories struct {
		h   map[inspect.Key][]inspect.StateEvent
		err error
	}
	hist := make(chan histories, 1)
	go func() {
		h, err := p.hist.upTo(ctx, rd.Time)
		hist <- histories{h, err}
	}()
	s, u, err := p.objects(ctx, i)
	h := <-hist
	if err == nil {
		err = h.err
	}
	if err != nil {
		f.Err = err
		return f
	}
	f.Snapshot, f.Update, f.History = s, u, h.h
	return f
}

// objects rebuilds reading i's objects, and the Tracker's report on
// them. The report is against the reading before: stepping forward from
// the one shown last, its Tracker goes on (a step costs one Update);
// anywhere else a new one sees the reading before first.
func (p *Player) objects(ctx context.Context, i int) (*inspect.Snapshot, inspect.Update, error) {
	tr := p.tr
	if i == 0 || tr == nil || p.lastSeq != p.res[i-1].Seq {
		// The histories are the recording's (histCache).
		tr = inspect.NewTracker(inspect.TrackerConfig{NoHistory: true})
		if i > 0 && p.res[i-1].Err == "" {
			if prev, err := p.before(ctx, i); err == nil {
				tr.Seed(prev)
			}
		}
	}
	s, err := p.cache.at(ctx, p.res[i].Seq)
	if err != nil {
		p.tr = nil
		return nil, inspect.Update{}, err
	}
	p.tr, p.lastSeq = tr, p.res[i].Seq
	return s, tr.Update(s), nil
}

// before rebuilds the objects of the reading before i, to seed a
// Tracker with: from reading i's keyframe when i is one (the objects
// the jump decodes next anyway).
func (p *Player) before(ctx context.Context, i int) (*inspect.Snapshot, error) {
	if p.res[i].Keyframe {
		return p.cache.beforeKey(ctx, p.res[i].Seq, p.res[i-1].Time)
	}
	return p.cache.at(ctx, p.res[i-1].Seq)
}

// sysAt rebuilds the sysfs reading at or before t, with rates against
// the one before it.
func (p *Player) sysAt(ctx context.Context, t time.Time) (sysfsmon.Update, bool) {
	i := sort.Search(len(p.sys), func(i int) bool { return p.sys[i].Time.After(t) }) - 1
	if i < 0 {
		return sysfsmon.Update{}, false
	}
	u, err := p.r.sys(ctx, p.sys[i].Seq)
	if err != nil {
		return sysfsmon.Update{Seq: i, Time: t, Err: err}, true
	}
	if i > 0 {
		if prev, err := p.r.sys(ctx, p.sys[i-1].Seq); err == nil {
			u.Interval = u.Time.Sub(prev.Time)
			u.CounterRates, _ = sysfsmon.CounterRates(prev.Counters, u.Counters)
		}
	}
	if u.IRQs != nil {
		if prev := p.irqsBefore(ctx, i, u.IRQs.Time); prev != nil {
			u.IRQRates, _ = sysfsmon.IRQRates(prev, u.IRQs)
		}
	}
	return u, true
}

// irqLookBack bounds how many sys readings back irqsBefore looks: the
// IRQs are read on full readings only (every live.FullEvery, 10).
const irqLookBack = 32

// irqsBefore finds the IRQ reading before the one of time t, among the
// sys readings before i, for the rates between the two.
func (p *Player) irqsBefore(ctx context.Context, i int, t time.Time) *sysfsmon.IRQSnapshot {
	for j := i - 1; j >= 0 && j >= i-irqLookBack; j-- {
		s, err := p.r.irqsAt(ctx, p.sys[j].Seq)
		if err != nil || s == nil {
			return nil
		}
		if s.Time.Before(t) {
			return s
		}
	}
	return nil
}
