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
// stay part of it) with the pragmas every connection gets. mode is rw
// or rwc; rw never creates a file.
func dsn(path, mode string) string {
	u := url.URL{Scheme: "file", Opaque: (&url.URL{Path: path}).EscapedPath()}
	q := url.Values{}
	q.Set("mode", mode)
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "foreign_keys(0)")
	u.RawQuery = q.Encode()
	return u.String()
}

// create makes a new recording at path: the file is created by
// privfile (0600, never through a symlink, never over another file
// unless force), then SQLite lays the schema in it. The WAL and shared
// memory files SQLite adds beside it take the file's mode.
func create(ctx context.Context, path string, force bool) (*sql.DB, error) {
	f, err := privfile.Create(path, force)
	if err != nil {
		return nil, fmt.Errorf("rec: create %s: %w", path, err)
	}
	f.Close()
	// A -wal or -shm left by an older file of the same name would be
	// taken as this one's: they go with it.
	for _, sfx := range []string{"-wal", "-shm", "-journal"} {
		if err := os.Remove(path + sfx); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("rec: create %s: remove the stale %s: %w", path, path+sfx, err)
		}
	}
	db, err := sql.Open("sqlite", dsn(path, "rw"))
	if err != nil {
		return nil, fmt.Errorf("rec: create %s: %w", path, err)
	}
	// One connection: a Writer's transactions are one after another,
	// and the pragmas below hold for it.
	db.SetMaxOpenConns(1)
	// auto_vacuum must come before the first table; WAL makes a
	// reading's commit survive a SIGKILL (the log is in the page cache)
	// and synchronous=NORMAL spares an fsync per reading, at the cost
	// of the last readings on a power cut.
	stmts := []string{
		"PRAGMA auto_vacuum = INCREMENTAL",
		"PRAGMA journal_mode = WAL",
		"PRAGMA synchronous = NORMAL",
		fmt.Sprintf("PRAGMA application_id = %d", appID),
		fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion),
		schema,
	}
	for _, s := range stmts {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, fmt.Errorf("rec: create %s: %w", path, err)
		}
	}
	return db, nil
}

// open opens an existing recording and checks that it is one this
// verbscope reads. Damage shows here or in a later query, always as
// an error.
func open(ctx context.Context, path string) (*sql.DB, int, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("rec: open: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("rec: open %s: not a regular file", path)
	}
	db, err := sql.Open("sqlite", dsn(path, "rw"))
	if err != nil {
		return nil, 0, fmt.Errorf("rec: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	var id, version int64
	if err = db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&id); err == nil {
		err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version)
	}
	switch {
	case err != nil:
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %w: %v (damaged or truncated, or not a database)", path, ErrNotRecording, err)
	case id != appID:
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %w (an SQLite file, but not made by verbscope record)", path, ErrNotRecording)
	case version > SchemaVersion:
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %w: its schema is version %d, this verbscope reads up to %d; read it with a newer verbscope",
			path, ErrNewerSchema, version, SchemaVersion)
	case version < 1:
		db.Close()
		return nil, 0, fmt.Errorf("rec: open %s: %w (no schema version)", path, ErrNotRecording)
	}
	return db, int(version), nil
}
