package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
)

// verdictState follows the diagnosis for the recording: its Diagnoser
// sees every reading written, and what was written last of each QP's
// verdict is kept, so a verdict is written when it begins, changes or
// ends (and whole at each keyframe), as alerts are.
type verdictState struct {
	d    *diagnose.Diagnoser
	last map[inspect.Key]diagnose.Verdict
}

func newVerdictState(peers diagnose.Peers) verdictState {
	return verdictState{d: diagnose.New(diagnose.Config{Peers: peers}), last: map[inspect.Key]diagnose.Verdict{}}
}

// observe runs the diagnosis on f; it may ask the peers, so it runs
// before the reading's transaction, not inside it.
func (s *verdictState) observe(ctx context.Context, f inspect.Frame) []diagnose.Verdict {
	if f.Snapshot == nil {
		return nil
	}
	return s.d.Observe(ctx, diagnose.FromFrame(f))
}

// sameVerdict tells whether a verdict says what the one written did:
// the cause, how sure, the QP's state and the why. Its evidence counts
// readings and rises, and changes every reading; it is written whole
// when the verdict begins or changes.
func sameVerdict(a, b *diagnose.Verdict) bool {
	return a.Cause == b.Cause && a.Certainty == b.Certainty && a.State == b.State && a.Why == b.Why
}

// write writes the rows of one reading's verdicts: begin for a QP that
// had none, change when it says something else, end for one that has
// none now, and on a keyframe every verdict standing (key), so a span
// pruned before keeps what stood at its start.
func (s *verdictState) write(ctx context.Context, tx *sql.Tx, seq int64, t time.Time, key bool, vs []diagnose.Verdict) error {
	put := func(op string, k inspect.Key, v *diagnose.Verdict) error {
		var cause, certainty string
		var body any
		if v != nil {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			cause, certainty, body = string(v.Cause), string(v.Certainty), string(b)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO verdicts (seq, t, op, dev, qpn, cause, certainty, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			seq, t.UnixNano(), op, k.Dev, k.ID, cause, certainty, body)
		return err
	}
	now := make(map[inspect.Key]bool, len(vs))
	for i := range vs {
		v := &vs[i]
		k := v.Key()
		now[k] = true
		was, had := s.last[k]
		op := "begin"
		switch {
		case had && sameVerdict(&was, v) && !key:
			continue
		case had && sameVerdict(&was, v):
			op = "key"
		case had:
			op = "change"
		}
		if err := put(op, k, v); err != nil {
			return err
		}
		s.last[k] = *v
	}
	for k := range s.last {
		if !now[k] {
			if err := put("end", k, nil); err != nil {
				return err
			}
			delete(s.last, k)
		}
	}
	return nil
}

// verdictsAt are the diagnosis's verdicts as they stood at the reading
// seq: each QP's last verdict row up to it, unless that one ended. A
// recording made before verdicts were recorded has none.
func (r *Reader) verdictsAt(ctx context.Context, seq int64) ([]diagnose.Verdict, error) {
	var out []diagnose.Verdict
	err := r.each(ctx, `SELECT body FROM verdicts WHERE id IN (SELECT MAX(id) FROM verdicts WHERE seq <= ? GROUP BY dev, qpn)
		AND op != 'end' ORDER BY dev, qpn`, func(rows *sql.Rows) error {
		var body string
		if err := rows.Scan(&body); err != nil {
			return err
		}
		var v diagnose.Verdict
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			return fmt.Errorf("a verdict's body: %w", err)
		}
		out = append(out, v)
		return nil
	}, seq)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return nil, nil
	}
	if err != nil {
		return nil, r.damaged(err)
	}
	return out, nil
}

// Verdicts are the verdicts a Player delivers with a reading: those
// that stood at its time (ui.Verdicts has the same fields).
type Verdicts struct {
	Seq  uint64
	Time time.Time
	List []diagnose.Verdict
}
