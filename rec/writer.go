package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/shell/transcript"
	"github.com/verbscope/verbscope/sysfsmon"
)

// DefaultKeyEvery is how many readings of a source pass between two
// keyframes when WriterOptions.KeyEvery is zero: at one reading a
// second, a seek replays at most a minute of changes.
const DefaultKeyEvery = 60

// Host is who was recorded: written once, when the recording starts.
type Host struct {
	Hostname, Kernel, RDMACore string
	// Devices are the RDMA devices the recording started with.
	Devices []string
	// Interval is the pause between readings asked for; Version is the
	// verbscope that recorded.
	Interval time.Duration
	Version  string
}

// WriterOptions tune a Writer; the zero value works.
type WriterOptions struct {
	// KeyEvery is the readings of a source between two keyframes
	// (default DefaultKeyEvery).
	KeyEvery int
	// Retain drops readings older than this behind the newest (0:
	// keep all); MaxSize drops the oldest readings while the file and
	// its -wal take more (0: no bound). Both act at keyframes and drop
	// whole keyframe spans, so a little more than asked may stay: up
	// to a span's readings.
	Retain  time.Duration
	MaxSize int64
	// Force replaces an existing regular file at the path.
	Force bool
	// Sessions is the verbs shells' session directory
	// (transcript.Dir), read at each reading of the objects into the
	// shell table; "" records no shell.
	Sessions string
	// Peers are asked by the diagnosis whose verdicts the recording
	// keeps (the verdicts table); nil judges on this host's facts.
	Peers diagnose.Peers
}

// Writer writes a recording: one transaction per reading (Frame, writeSys),
// so what was committed survives a crash. It is not safe for
// concurrent use.
type Writer struct {
	db   *sql.DB
	path string
	o    WriterOptions
	res  resState
	sys  sysState
	verd verdictState
	// shells follows the session directory.
	shells *transcript.Tail
	// sinceRes and sinceSys count each source's readings since its
	// last keyframe.
	sinceRes, sinceSys int
}

// Create starts a recording at path, describing h.
func Create(ctx context.Context, path string, h Host, o WriterOptions) (*Writer, error) {
	if o.KeyEvery <= 0 {
		o.KeyEvery = DefaultKeyEvery
	}
	db, err := create(ctx, path, o.Force)
	if err != nil {
		return nil, err
	}
	w := &Writer{db: db, path: path, o: o, res: newResState(), sys: newSysState(), verd: newVerdictState(o.Peers), shells: transcript.NewTail(o.Sessions)}
	devs, _ := json.Marshal(h.Devices)
	kv := [][2]string{
		{"hostname", h.Hostname}, {"kernel", h.Kernel}, {"rdma_core", h.RDMACore},
		{"devices", string(devs)}, {"interval_ns", strconv.FormatInt(int64(h.Interval), 10)},
		{"version", h.Version}, {"started", time.Now().UTC().Format(time.RFC3339Nano)},
		{"key_every", strconv.Itoa(o.KeyEvery)},
	}
	err = w.tx(ctx, func(tx *sql.Tx) error {
		for _, p := range kv {
			if _, err := tx.ExecContext(ctx, "INSERT INTO host (key, value) VALUES (?, ?)", p[0], p[1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("rec: create %s: %w", path, err)
	}
	return w, nil
}

// Close ends the recording: the log is checkpointed into the file.
func (w *Writer) Close() error {
	if w.db == nil {
		return nil
	}
	_, _ = w.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	err := w.db.Close()
	w.db = nil
	return err
}

// ErrClosed is a write to a Writer after its Close.
var ErrClosed = errors.New("the recording is closed")

// tx runs fn in one transaction.
func (w *Writer) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	if w.db == nil {
		return ErrClosed
	}
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// reading inserts a reading's row and returns its seq.
func reading(ctx context.Context, tx *sql.Tx, t time.Time, source string, key bool, took time.Duration, failed error) (int64, error) {
	var errText any
	if failed != nil {
		errText = failed.Error()
	}
	r, err := tx.ExecContext(ctx, "INSERT INTO readings (t, source, keyframe, took, err) VALUES (?, ?, ?, ?, ?)",
		t.UnixNano(), source, key, int64(took), errText)
	if err != nil {
		return 0, err
	}
	return r.LastInsertId()
}

// gap notes what the recording lacks at a reading.
func gap(ctx context.Context, tx *sql.Tx, seq int64, t time.Time, what, detail string) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO gaps (seq, t, what, detail) VALUES (?, ?, ?, ?)", seq, t.UnixNano(), what, detail)
	return err
}

// Frame writes one of inspect's frames: the objects that appeared,
// changed or vanished, the QPs' new transitions, the processes' changed
// object counts, the alerts that began or ended, and gaps; with the
// lines the verbs shells wrote since the reading before.
func (w *Writer) Frame(ctx context.Context, f inspect.Frame) error {
	t, took := time.Now(), time.Duration(0)
	if f.Snapshot != nil {
		t, took = f.Snapshot.Time, f.Snapshot.Took
	}
	key := f.Err == nil && w.sinceRes == 0
	shells := w.shells.Read()
	verdicts := w.verd.observe(ctx, f)
	err := w.tx(ctx, func(tx *sql.Tx) error {
		seq, err := reading(ctx, tx, t, "res", key, took, f.Err)
		if err != nil {
			return err
		}
		if err := writeShell(ctx, tx, seq, shells); err != nil {
			return err
		}
		if err := w.res.write(ctx, tx, seq, t, key, f); err != nil {
			return err
		}
		if f.Snapshot == nil {
			return nil // a failed reading says nothing of the verdicts
		}
		return w.verd.write(ctx, tx, seq, t, key, verdicts)
	})
	if err != nil {
		return fmt.Errorf("rec: write reading: %w", err)
	}
	if f.Err == nil {
		w.sinceRes = (w.sinceRes + 1) % w.o.KeyEvery
	}
	return w.afterKeyframe(ctx, key)
}

// writeSys writes one of sysfsmon's readings: devices whose sysfs view
// changed, counters whose value moved, and gaps.
func (w *Writer) writeSys(ctx context.Context, u sysfsmon.Update) error {
	key := w.sinceSys == 0
	err := w.tx(ctx, func(tx *sql.Tx) error {
		seq, err := reading(ctx, tx, u.Time, "sys", key, u.CountersTook+u.DevicesTook, u.Err)
		if err != nil {
			return err
		}
		return w.sys.write(ctx, tx, seq, key, u)
	})
	if err != nil {
		return fmt.Errorf("rec: write reading: %w", err)
	}
	w.sinceSys = (w.sinceSys + 1) % w.o.KeyEvery
	return w.afterKeyframe(ctx, key)
}

// afterKeyframe prunes, when asked to, after each keyframe: the only
// readings where a whole span can go.
func (w *Writer) afterKeyframe(ctx context.Context, key bool) error {
	if !key || (w.o.Retain <= 0 && w.o.MaxSize <= 0) {
		return nil
	}
	if err := prune(ctx, w.db, w.path+"-wal", w.o.Retain, w.o.MaxSize); err != nil {
		return fmt.Errorf("rec: prune: %w", err)
	}
	return nil
}
