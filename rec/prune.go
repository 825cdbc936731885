package rec

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"time"
)

// prune drops the oldest readings: those more than retain older than
// the newest, and then the oldest while the recording takes more than
// maxSize on disk, its log (the -wal at wal) counted. It cuts only at a
// keyframe, and at one where every source has a keyframe at or after
// the cut, so each reading left rebuilds.
func prune(ctx context.Context, db *sql.DB, wal string, retain time.Duration, maxSize int64) error {
	if retain > 0 {
		var newest int64
		if err := db.QueryRowContext(ctx, "SELECT COALESCE(MAX(t), 0) FROM readings").Scan(&newest); err != nil {
			return err
		}
		cut, ok, err := cutAt(ctx, db, newest-int64(retain), 0)
		if err != nil || !ok {
			return err
		}
		if err := dropBefore(ctx, db, cut); err != nil {
			return err
		}
	}
	for maxSize > 0 {
		size, err := onDisk(ctx, db, wal)
		if err != nil || size <= maxSize {
			return err
		}
		// The log first: written back into the file and cut to nothing
		// (with the pages the last drop freed), it may be all that was
		// over. A reader in the middle of a query can keep it; then
		// readings go.
		if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
			return err
		}
		if size, err = onDisk(ctx, db, wal); err != nil || size <= maxSize {
			return err
		}
		// The second span's start: the oldest span goes.
		cut, ok, err := cutAt(ctx, db, 0, 1)
		if err != nil || !ok {
			return err
		}
		if err := dropBefore(ctx, db, cut); err != nil {
			return err
		}
	}
	return nil
}

// cutAt is the seq before which readings can go: for each source, its
// first keyframe at or after time t (skipping skip keyframes), and of
// those the smallest. ok is false when a source has none (nothing can
// go yet) or when the cut would drop nothing.
func cutAt(ctx context.Context, db *sql.DB, t int64, skip int) (int64, bool, error) {
	var cut sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT MIN(k) FROM (
		SELECT (SELECT seq FROM readings r WHERE r.source = s.source AND r.keyframe AND r.t >= ? ORDER BY seq LIMIT 1 OFFSET ?) AS k
		FROM (SELECT DISTINCT source FROM readings) s)
		HAVING COUNT(k) = COUNT(*)`, t, skip).Scan(&cut)
	if err == sql.ErrNoRows || (err == nil && !cut.Valid) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	var first int64
	if err := db.QueryRowContext(ctx, "SELECT MIN(seq) FROM readings").Scan(&first); err != nil {
		return 0, false, err
	}
	return cut.Int64, cut.Int64 > first, nil
}

// dropBefore deletes the readings before seq and all they wrote, then
// gives the freed pages back to the file system.
func dropBefore(ctx context.Context, db *sql.DB, seq int64) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, t := range append([]string{"readings"}, seqTables...) {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+t+" WHERE seq < ?", seq); err != nil {
			tx.Rollback()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "PRAGMA incremental_vacuum")
	return err
}

// onDisk is what the recording takes: the database's pages but its free
// ones, and its log.
func onDisk(ctx context.Context, db *sql.DB, wal string) (int64, error) {
	size, err := usedBytes(ctx, db)
	if err != nil {
		return 0, err
	}
	if st, err := os.Stat(wal); err == nil {
		size += st.Size()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	return size, nil
}

// usedBytes is the database's size without its free pages.
func usedBytes(ctx context.Context, db *sql.DB) (int64, error) {
	var pages, free, size int64
	for _, q := range []struct {
		sql string
		v   *int64
	}{{"PRAGMA page_count", &pages}, {"PRAGMA freelist_count", &free}, {"PRAGMA page_size", &size}} {
		if err := db.QueryRowContext(ctx, q.sql).Scan(q.v); err != nil {
			return 0, err
		}
	}
	return (pages - free) * size, nil
}
