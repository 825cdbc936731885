package rec

import (
	"context"
	"database/sql"
	"time"

	"github.com/verbscope/verbscope/shell/transcript"
)

// maxShellLines bounds the lines shell returns: the newest, about what
// the dashboard's pane keeps.
const maxShellLines = 2000

// writeShell writes the verbs shells' lines read at reading seq.
func writeShell(ctx context.Context, tx *sql.Tx, seq int64, lines []transcript.Line) error {
	for _, l := range lines {
		if _, err := tx.ExecContext(ctx, "INSERT INTO shell (seq, t, pid, face, kind, text) VALUES (?, ?, ?, ?, ?, ?)",
			seq, l.Time.UnixNano(), l.PID, l.Face, l.Kind, l.Text); err != nil {
			return err
		}
	}
	return nil
}

// shell is what the verbs shells entered and answered up to t, in the
// order written, the newest maxShellLines. A recording older than the
// shell table (schema 3) has none.
func (r *Reader) shell(ctx context.Context, t time.Time) ([]transcript.Line, error) {
	if r.schema < 3 {
		return nil, nil
	}
	var out []transcript.Line
	err := r.each(ctx, `SELECT t, pid, face, kind, text FROM (
		SELECT rowid AS id, t, pid, face, kind, text FROM shell WHERE t <= ? ORDER BY t DESC, rowid DESC LIMIT ?)
		ORDER BY t, id`, func(rows *sql.Rows) error {
		var l transcript.Line
		var ns int64
		if err := rows.Scan(&ns, &l.PID, &l.Face, &l.Kind, &l.Text); err != nil {
			return err
		}
		l.Time = time.Unix(0, ns)
		out = append(out, l)
		return nil
	}, t.UnixNano(), maxShellLines)
	if err != nil {
		return nil, r.damaged(err)
	}
	return out, nil
}
