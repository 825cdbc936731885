package dash

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/pace"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/shell/transcript"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/ui"
	"github.com/verbscope/verbscope/view"
)

// DefaultRewind is how far back the live dashboard can rewind (--rewind).
const DefaultRewind = 10 * time.Minute

// rewindMaxSize bounds the rewind file and its -wal together whatever
// --rewind says (they are in memory when the folder is on a tmpfs): at
// 10,000 QPs a keyframe is some 5 MB (docs/record.md), so ten minutes
// at 1 s stay well under it.
const rewindMaxSize = 256 << 20

// rewindKeyEvery is the rewind file's keyframe interval, in readings:
// a keyframe writes every object, the one cost that grows with what
// exists rather than what changed, so the rewind takes one every five
// minutes at 1 s (a `verbscope record` file, one a minute). A step back
// replays at most that many readings of changes.
const rewindKeyEvery = 300

// rewinder is the live dashboard's twin mode (atop's): the live readings
// are recorded, as verbscope record would, into a file of the last
// minutes in a private folder (rewinddir.go), and `[` plays that file back in
// place of the live readings; `]` at its end or esc returns to live.
// The live readings go on being recorded while the past is shown.
type rewinder struct {
	path   string
	dir    *rewindDir
	w      *rec.Writer
	feed   *rec.Feed
	inRes  <-chan inspect.Frame
	inSys  <-chan sysfsmon.Update
	inVerd <-chan ui.Verdicts
	res    chan inspect.Frame
	sys    chan sysfsmon.Update
	shell  chan []transcript.Line
	verd   chan ui.Verdicts
	cmds   chan func()
	stop   context.CancelFunc
	done   chan struct{}
	window time.Duration

	// Owned by run's goroutine.
	reader   *rec.Reader
	player   *rec.Player
	lastRes  *inspect.Frame
	lastSys  *sysfsmon.Update
	lastVerd *ui.Verdicts
	liveTime time.Time

	mu  sync.Mutex
	pos ui.ReplayPosition
}

// startRewind records src's readings for window and returns the sources
// the dashboard shows: the live ones, or the past while rewinding. The
// file is made 0600 in a private folder of its own (rewinddir.go) and
// removed, with the folder, by close.
func startRewind(ctx context.Context, src ui.Sources, host rec.Host, window time.Duration) (ui.Sources, func(), error) {
	dir, err := makeRewindDir()
	if err != nil {
		return src, func() {}, fmt.Errorf("rewind: %w", err)
	}
	path := dir.file()
	w, err := rec.Create(ctx, path, host, rec.WriterOptions{KeyEvery: rewindKeyEvery, Retain: window, MaxSize: rewindMaxSize,
		Sessions: transcript.Dir()})
	if err != nil {
		dir.remove()
		return src, func() {}, fmt.Errorf("rewind: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &rewinder{path: path, dir: dir, w: w, feed: rec.NewFeed(ctx, w, nil), inRes: src.Res, inSys: src.Sys, inVerd: src.Verdicts, verd: make(chan ui.Verdicts, 1),
		res: make(chan inspect.Frame, 1), sys: make(chan sysfsmon.Update, 1), shell: make(chan []transcript.Line, 1), cmds: make(chan func(), 16),
		stop: cancel, done: make(chan struct{}), window: window,
		pos: ui.ReplayPosition{Rewind: true, Live: true, Speed: 1}}
	go r.run(ctx)
	src.Res, src.Sys, src.Replay, src.ReplayShell, src.Verdicts = r.res, r.sys, r, r.shell, r.verd
	return src, r.close, nil
}

// close stops the rewinder and removes its file and folder.
func (r *rewinder) close() {
	r.stop()
	<-r.done
	r.feed.Close()
	r.w.Close()
	r.dir.remove()
}

func (r *rewinder) run(ctx context.Context) {
	defer close(r.done)
	defer close(r.res)
	defer close(r.sys)
	defer close(r.shell)
	defer close(r.verd)
	defer r.resume()
	for {
		var pres <-chan inspect.Frame
		var psys <-chan sysfsmon.Update
		var pshell <-chan []transcript.Line
		var pverd <-chan rec.Verdicts
		if r.player != nil {
			pres, psys, pshell, pverd = r.player.Frames(), r.player.Updates(), r.player.Shell(), r.player.Verdicts()
		}
		select {
		case <-ctx.Done():
			return
		case f, ok := <-r.inRes:
			if !ok {
				return
			}
			r.feed.Frame(f)
			r.lastRes = &f
			if f.Snapshot != nil {
				r.liveTime = f.Snapshot.Time
			}
			// The position first: whoever takes the frame sees its
			// position.
			r.setPos()
			if r.player == nil {
				pace.Deliver(r.res, f)
			}
		case u, ok := <-r.inSys:
			if !ok {
				return
			}
			r.feed.Sys(u)
			r.lastSys = &u
			if r.player == nil {
				pace.Deliver(r.sys, u)
			}
		case f, ok := <-pres:
			if ok {
				r.setPos()
				pace.Deliver(r.res, f)
			}
		case u, ok := <-psys:
			if ok {
				pace.Deliver(r.sys, u)
			}
		case ls, ok := <-pshell:
			if ok {
				pace.Deliver(r.shell, ls)
			}
		case v, ok := <-r.inVerd:
			if !ok {
				r.inVerd = nil // the diagnosis stopped; the readings go on
				continue
			}
			r.lastVerd = &v
			if r.player == nil {
				pace.Deliver(r.verd, v)
			}
		case v, ok := <-pverd:
			if ok {
				// The verdicts as they stood then, which the
				// recording's own diagnosis wrote.
				pace.Deliver(r.verd, ui.Verdicts(v))
			}
		case fn := <-r.cmds:
			fn()
			r.setPos()
		}
	}
}

// setPos notes where the dashboard is, for Position.
func (r *rewinder) setPos() {
	p := ui.ReplayPosition{Rewind: true, Live: r.player == nil, Time: r.liveTime, Speed: 1}
	if r.player != nil {
		s := r.player.Status()
		p.Time, p.Index, p.Len, p.Playing, p.Speed = s.Time, s.Index, s.Len, s.Playing, s.Speed
		p.Behind = r.liveTime.Sub(s.Time)
	}
	r.mu.Lock()
	r.pos = p
	r.mu.Unlock()
}

// rewind starts showing the past at its newest reading; false (and a
// reason on the status line through the frame's error) when there is
// nothing recorded yet.
func (r *rewinder) rewind() bool {
	if r.player != nil {
		return true
	}
	ctx := context.Background()
	rd, err := rec.Open(ctx, r.path)
	if err != nil {
		return false
	}
	p, err := rec.NewPlayer(ctx, rd, r.liveTime.Add(time.Hour))
	if err != nil {
		rd.Close()
		return false
	}
	r.reader, r.player = rd, p
	return true
}

// resume returns to live: the newest live readings are shown at once.
func (r *rewinder) resume() {
	if r.player == nil {
		return
	}
	r.player.Close()
	r.reader.Close()
	r.player, r.reader = nil, nil
	r.setPos()
	if r.lastRes != nil {
		pace.Deliver(r.res, *r.lastRes)
	}
	if r.lastSys != nil {
		pace.Deliver(r.sys, *r.lastSys)
	}
	if r.lastVerd != nil {
		pace.Deliver(r.verd, *r.lastVerd)
	}
}

// do runs fn on run's goroutine; dropped when keys come faster than it
// takes them.
func (r *rewinder) do(fn func()) {
	select {
	case r.cmds <- fn:
	default:
	}
}

// Step moves n readings; back from live starts rewinding, forward past
// the newest recorded reading returns to live.
func (r *rewinder) Step(n int) {
	r.do(func() {
		if r.player == nil {
			if n >= 0 || !r.rewind() {
				return
			}
		} else if s := r.player.Status(); n > 0 && s.Index+n >= s.Len {
			r.resume()
			return
		}
		r.player.Step(n)
	})
}

// Event moves to the previous or next event (of what match takes);
// back from live starts rewinding.
func (r *rewinder) Event(dir int, match func(inspect.Kind, view.Row) bool) {
	r.do(func() {
		if r.player == nil && (dir > 0 || !r.rewind()) {
			return
		}
		r.player.Event(dir, match)
	})
}

// SeekTo moves to a time within the rewind window (start, end, -30s,
// 09:24:05).
func (r *rewinder) SeekTo(text string) error {
	t, err := rec.ParseAt(text, r.liveTimeNow().Add(-r.window), r.liveTimeNow())
	if err != nil {
		return err
	}
	r.do(func() {
		if r.rewind() {
			r.player.Seek(t)
		}
	})
	return nil
}

func (r *rewinder) liveTimeNow() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pos.Time.Add(r.pos.Behind)
}

// TogglePlay, Faster and Slower steer the playback of the past.
func (r *rewinder) TogglePlay() { r.onPlayer(func(p *rec.Player) { p.TogglePlay() }) }
func (r *rewinder) Faster()     { r.onPlayer(func(p *rec.Player) { p.Faster() }) }
func (r *rewinder) Slower()     { r.onPlayer(func(p *rec.Player) { p.Slower() }) }

func (r *rewinder) onPlayer(fn func(*rec.Player)) {
	r.do(func() {
		if r.player != nil {
			fn(r.player)
		}
	})
}

// Resume returns to live.
func (r *rewinder) Resume() { r.do(r.resume) }

// Position is where the dashboard is: live, or how far behind it.
func (r *rewinder) Position() ui.ReplayPosition {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pos
}
