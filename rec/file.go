package rec

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"

	// modernc.org/sqlite is SQLite compiled to Go: no cgo, so a
	// CGO_ENABLED=0 build records too, and its cold build cost less CPU
	// than the cgo driver's C compile on the build host (docs/record.md).
	_ "modernc.org/sqlite"

	"github.com/verbscope/verbscope/internal/privfile"
)

// ErrNewerSchema is a recording written by a newer verbscope: its
// tables may mean what this one does not know, so it is not read.
var ErrNewerSchema = errors.New("recording from a newer verbscope")

// ErrNotRecording is a file that is not a verbscope recording: not
// SQLite, damaged or truncated, or another program's database.
var ErrNotRecording = errors.New("not a verbscope recording")

// dsn names path for the driver: a file: URI (so '?' and '#' in a name
// stay part of it) with SQLite's URI parameters in q and the pragmas
// every connection gets.
func dsn(path string, q url.Values, pragmas ...string) string {
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath()}
	q.Add("_pragma", "busy_timeout(5000)")
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// sidecars are the files SQLite keeps beside a database: its write-ahead
// log and the log's shared-memory index.
var sidecars = []string{"-wal", "-shm"}

// walKeep is what a recording's -wal is cut back to once written back
// into the file: the log of SQLite's automatic checkpoint (1000 pages
// of 4 KiB). Without it the log keeps the size of its largest run of
// writes (a big keyframe) for as long as the file is open.
const walKeep = 4 << 20

// beforeWAL runs just before SQLite opens a new recording's -wal and
// -shm: a test's other user plants files there.
var beforeWAL = func(path string) {}

// create makes a new recording at path: the file is created by
// privfile (0600, never through a symlink, never over another file
// unless force), then SQLite lays the schema in it.
//
// SQLite opens its -wal and -shm with O_CREAT but not O_EXCL: one that
// another user made first in a shared folder (/tmp) would be used as
// it is, theirs and readable by them, and what they wrote in it taken
// as frames. So the schema is laid with the rollback journal in memory
// (no file beside it), then privfile makes the -wal and -shm, 0600 and
// ours, replacing any made meanwhile (one that cannot be removed,
// another user's in a sticky folder, stops the recording here), and
// only then is the file switched to WAL, which opens them. They are
// made once the file holds pages: SQLite deletes a -wal it finds beside
// an empty database.
func create(ctx context.Context, path string, force bool) (*sql.DB, error) {
	f, err := privfile.Create(path, force)
	if err != nil {
		return nil, fmt.Errorf("rec: create %s: %w", path, err)
	}
	f.Close()
	// Files left by an older file of the same name would be taken as
	// this one's (a -journal played into it).
	for _, sfx := range append([]string{"-journal"}, sidecars...) {
		if err := os.Remove(path + sfx); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("rec: create %s: remove the stale %s%s: %w", path, path, sfx, err)
		}
	}
	db, err := sql.Open("sqlite", dsn(path, url.Values{"mode": {"rw"}}, "foreign_keys(0)"))
	if err != nil {
		return nil, fmt.Errorf("rec: create %s: %w", path, err)
	}
	// One connection: a Writer's transactions are one after another,
	// and the pragmas below hold for it.
	db.SetMaxOpenConns(1)
	// auto_vacuum must come before the first table; WAL makes a
	// reading's commit survive a SIGKILL (the log is in the page cache)
	// and synchronous=NORMAL spares an fsync per reading, at the cost
	// of the last readings on a power cut; journal_size_limit bounds
	// the log (walKeep).
	schemaStmts := []string{
		"PRAGMA journal_mode = MEMORY",
		"PRAGMA auto_vacuum = INCREMENTAL",
		fmt.Sprintf("PRAGMA application_id = %d", appID),
		fmt.Sprintf("PRAGMA user_version = %d", schemaVersion),
		schema,
	}
	walStmts := []string{
		"PRAGMA journal_mode = WAL",
		"PRAGMA synchronous = NORMAL",
		fmt.Sprintf("PRAGMA journal_size_limit = %d", walKeep),
	}
	fail := func(err error) (*sql.DB, error) {
		db.Close()
		return nil, fmt.Errorf("rec: create %s: %w", path, err)
	}
	for _, s := range schemaStmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fail(err)
		}
	}
	for _, sfx := range sidecars {
		f, err := privfile.Create(path+sfx, true)
		if err != nil {
			return fail(fmt.Errorf("SQLite's %s beside it: %w (remove it, or record in a folder of your own)", sfx, err))
		}
		f.Close()
	}
	beforeWAL(path)
	for _, s := range walStmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fail(err)
		}
	}
	return db, nil
}
