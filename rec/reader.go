package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"
)

// Reader reads a recording. Every method's error wraps what SQLite
// said of a damaged file; none panics.
type Reader struct {
	db     *sql.DB
	path   string
	schema int
}

// Open opens the recording at path to read it (open: read-only, the
// schema checked, values bounded). A file of a newer schema is
// ErrNewerSchema, anything else that is not a recording, or not as
// verbscope writes one, ErrNotRecording.
func Open(ctx context.Context, path string) (*Reader, error) {
	db, v, err := open(ctx, path)
	if err != nil {
		return nil, err
	}
	// Two connections: a Player reads a reading's histories while it
	// rebuilds its objects.
	db.SetMaxOpenConns(2)
	return &Reader{db: db, path: path, schema: v}, nil
}

// Close closes the file.
func (r *Reader) Close() error { return r.db.Close() }

// Info is what `verbscope record info` says of a recording.
type Info struct {
	Path   string `json:"path"`
	Size   int64  `json:"size_bytes"`
	Schema int    `json:"schema"`
	// Host is the host table: hostname, kernel, rdma_core, devices,
	// interval_ns, version, started, key_every.
	Host map[string]string `json:"host"`
	// From and To are the first and last readings' times.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Readings counts each source's readings, Keyframes the keyframes.
	Readings    map[string]int `json:"readings"`
	Keyframes   int            `json:"keyframes"`
	Objects     int            `json:"objects"`
	Transitions int            `json:"transitions"`
	Alerts      int            `json:"alerts"`
	// Gaps are the first maxInfoGaps gaps; MoreGaps counts the rest.
	Gaps     []Gap `json:"gaps"`
	MoreGaps int   `json:"more_gaps,omitempty"`
}

// What Info reads at most of a recording's host table and gaps: a
// recording has some ten host keys, and a gap per missed reading, so a
// file with more is read in part, not whole into memory.
const (
	maxHostKeys = 64
	maxInfoGaps = 1000
)

// Gap is something the recording lacks: readings missed or failed,
// trace events lost.
type Gap struct {
	Time   time.Time `json:"time"`
	What   string    `json:"what"`
	Detail string    `json:"detail"`
}

// Info sums the recording up.
func (r *Reader) Info(ctx context.Context) (Info, error) {
	in := Info{Path: r.path, Schema: r.schema, Host: map[string]string{}, Readings: map[string]int{}}
	if st, err := os.Stat(r.path); err == nil {
		in.Size = st.Size()
		if wal, err := os.Stat(r.path + "-wal"); err == nil {
			in.Size += wal.Size()
		}
	}
	err := r.each(ctx, "SELECT key, value FROM host LIMIT ?", func(rows *sql.Rows) error {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		in.Host[k] = v
		return nil
	}, maxHostKeys)
	if err == nil {
		err = r.each(ctx, "SELECT source, COUNT(*), SUM(keyframe) FROM readings GROUP BY source", func(rows *sql.Rows) error {
			var s string
			var n, k int
			if err := rows.Scan(&s, &n, &k); err != nil {
				return err
			}
			in.Readings[s], in.Keyframes = n, in.Keyframes+k
			return nil
		})
	}
	var from, to int64
	for _, q := range []struct {
		sql string
		v   any
	}{
		{"SELECT COALESCE(MIN(t), 0), COALESCE(MAX(t), 0) FROM readings", nil},
		{"SELECT COUNT(*) FROM (SELECT DISTINCT kind, dev, num FROM objects)", &in.Objects},
		{"SELECT COUNT(*) FROM transitions", &in.Transitions},
		{"SELECT COUNT(*) FROM alerts WHERE op = 'begin'", &in.Alerts},
	} {
		if err != nil {
			break
		}
		if q.v == nil {
			err = r.db.QueryRowContext(ctx, q.sql).Scan(&from, &to)
		} else {
			err = r.db.QueryRowContext(ctx, q.sql).Scan(q.v)
		}
	}
	if err == nil {
		err = r.each(ctx, "SELECT t, what, detail FROM gaps ORDER BY t, seq LIMIT ?", func(rows *sql.Rows) error {
			var g Gap
			var t int64
			if err := rows.Scan(&t, &g.What, &g.Detail); err != nil {
				return err
			}
			g.Time = time.Unix(0, t)
			in.Gaps = append(in.Gaps, g)
			return nil
		}, maxInfoGaps)
	}
	if err == nil && len(in.Gaps) == maxInfoGaps {
		var n int
		err = r.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM gaps").Scan(&n)
		in.MoreGaps = n - len(in.Gaps)
	}
	if err != nil {
		return Info{}, r.damaged(err)
	}
	in.From, in.To = time.Unix(0, from), time.Unix(0, to)
	return in, nil
}

// Devices lists the devices the recording started with.
func (in Info) Devices() []string {
	var d []string
	_ = json.Unmarshal([]byte(in.Host["devices"]), &d)
	return d
}

// Interval is the pause between readings the recorder was asked for.
func (in Info) Interval() time.Duration {
	n, _ := strconv.ParseInt(in.Host["interval_ns"], 10, 64)
	return time.Duration(n)
}

// each runs q and calls fn for every row.
func (r *Reader) each(ctx context.Context, q string, fn func(*sql.Rows) error, args ...any) error {
	rows, err := r.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// damaged wraps an error of a query on the recording.
func (r *Reader) damaged(err error) error {
	return fmt.Errorf("rec: read %s: %w (the file may be damaged or truncated)", r.path, err)
}
