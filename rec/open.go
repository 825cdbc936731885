package rec

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/verbscope/verbscope/view"
)

// maxValue is the longest text or blob one column of a recording may
// hold when read (SQLITE_LIMIT_LENGTH): a keyframe's largest body, a
// device with every GID, is some kilobytes. SQLite's own limit is a
// gigabyte, which a 4 KB file claiming a long overflow chain could
// make it allocate before the chain turns out to be false.
const maxValue = 16 << 20

// open opens an existing recording to read it, and only to read it:
// a recording comes from anyone (a colleague's, a bug report's), so it
// is read as outside input. The connection is read-only (mode=ro, and
// query_only besides), trusts nothing the schema says (trusted_schema
// off), reads no column longer than maxValue, and the schema must be
// the one verbscope writes (checkSchema): no view, trigger or column of
// the file's own then runs or computes anything when read.
//
// A recording with no -wal beside it has no writer: it is opened
// immutable, so nothing (no -wal, -shm or lock) is made or written
// beside it. One with a -wal (being written, or left by a writer that
// was killed) is read with its log, as SQLite reads a WAL database
// read-only; a hot rollback journal is never played into it (SQLite
// refuses it on a read-only connection).
func open(ctx context.Context, path string) (*sql.DB, int, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("rec: open: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("rec: open %s: not a regular file", path)
	}
	// SQLite opens (and may write) the -wal and -shm by name: a link
	// planted there is refused, not followed.
	for _, sfx := range sidecars {
		if st, err := os.Lstat(path + sfx); err == nil && !st.Mode().IsRegular() {
			return nil, 0, fmt.Errorf("rec: open %s: %s%s beside it is not a regular file (a symbolic link?): not followed; remove it", path, path, sfx)
		}
	}
	q := url.Values{"mode": {"ro"}}
	if _, err := os.Lstat(path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		q.Set("immutable", "1")
	}
	c, err := sqlite.NewConnector(dsn(path, q, "query_only(1)", "trusted_schema(0)", "cell_size_check(1)"))
	if err != nil {
		return nil, 0, fmt.Errorf("rec: open %s: %w", path, err)
	}
	db := sql.OpenDB(limited{c})
	db.SetMaxOpenConns(1)
	var id, version int64
	if err = db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&id); err == nil {
		err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version)
	}
	var serr *sqlite.Error
	switch {
	case errors.As(err, &serr) && serr.Code() == sqlite3.SQLITE_READONLY_ROLLBACK:
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %s-journal beside it holds a write that was never finished, and a recording is read without writing to it: "+
			"let SQLite roll it back (sqlite3 %s 'PRAGMA quick_check' as the file's owner) if you trust the file, or remove the journal", path, path, path)
	case err != nil:
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %w: %s (damaged or truncated, or not a database)", path, ErrNotRecording, view.Printable(err.Error()))
	case id != appID:
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %w (an SQLite file, but not made by verbscope record)", path, ErrNotRecording)
	case version > schemaVersion:
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %w: its schema is version %d, this verbscope reads up to %d; read it with a newer verbscope",
			path, ErrNewerSchema, version, schemaVersion)
	case version < 1:
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %w (no schema version)", path, ErrNotRecording)
	}
	if err := checkSchema(ctx, db, int(version)); err != nil {
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %w", path, err)
	}
	return db, int(version), nil
}

// readLimits are SQLite's limits (sqlite3_limit(3)) on a connection
// that reads a recording.
var readLimits = map[int]int{
	sqlite3.SQLITE_LIMIT_LENGTH: maxValue,
}

// limited is a connector whose connections have readLimits set before
// their first statement.
type limited struct{ driver.Connector }

func (l limited) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := l.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := setLimits(ctx, lender{c, l.Driver()}); err != nil {
		c.Close()
		return nil, fmt.Errorf("set the connection's limits: %w", err)
	}
	return c, nil
}

// setLimits sets readLimits on l's connection. The driver's Limit
// takes a *sql.Conn and finds its own connection behind Unwrap, so the
// connection is lent, for the call, to a pool of one whose Close leaves
// it open.
func setLimits(ctx context.Context, l lender) error {
	db := sql.OpenDB(l)
	defer db.Close()
	sc, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer sc.Close()
	for id, v := range readLimits {
		if _, err := sqlite.Limit(sc, id, v); err != nil {
			return err
		}
		// SQLite may lower what it is given to its compiled maximum,
		// never raise it: what is set is at most v.
		if got, err := sqlite.Limit(sc, id, -1); err != nil || got > v {
			return fmt.Errorf("limit %d is %d, want at most %d (%v)", id, got, v, err)
		}
	}
	return nil
}

// lender hands out one connection, lent.
type lender struct {
	c driver.Conn
	d driver.Driver
}

func (l lender) Connect(context.Context) (driver.Conn, error) { return lent{l.c}, nil }
func (l lender) Driver() driver.Driver                        { return l.d }

// lent is a connection whose Close is its owner's to do.
type lent struct{ driver.Conn }

func (lent) Close() error          { return nil }
func (l lent) Unwrap() driver.Conn { return l.Conn }
