package export

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/sysfsmon"
)

// exportFeed is export --record's recording: a rec.Feed over its
// Writer.
type exportFeed struct {
	*rec.Feed
	w    *rec.Writer
	path string
}

// startRecording starts export --record's recording into o.Record,
// keeping a file already there (the exporter restarted) as FILE.prev.
// A write that fails stops the recording and is logged; the exporter
// goes on.
func startRecording(ctx context.Context, o RunOptions, fsys *sysfsmon.FS) (*exportFeed, error) {
	path, log := o.Record, o.Log
	kept, err := keepPrev(path)
	if err != nil {
		return nil, err
	}
	if kept {
		log.Info("record: kept the last recording", "file", path+".prev")
	}
	w, err := rec.Create(ctx, path, rec.HostHere(fsys, o.Collector.Interval, o.RecordVersion), o.RecordOptions)
	if err != nil {
		return nil, fmt.Errorf("export: --record: %w", err)
	}
	f := &exportFeed{Feed: rec.NewFeed(ctx, w, nil), w: w, path: path}
	go func() {
		<-f.Done()
		if err := f.Err(); err != nil {
			log.Error("record: the recording stopped; the exporter goes on", "file", path, "err", err)
		}
	}()
	log.Info("record: recording", "file", path, "interval", o.Collector.Interval, "retain", o.RecordOptions.Retain, "max_size", o.RecordOptions.MaxSize)
	return f, nil
}

// keepPrev keeps the recording at path, if there is one, as
// path.prev, replacing an older one. SQLite's files beside them move
// with them: the older .prev's -wal and -shm are removed first, or an
// older log would be paired with the newer file (its frames read over
// the newer pages); then path's own, if it left any (a clean close
// leaves none), become the .prev's.
func keepPrev(path string) (bool, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("export: --record %s: %w", path, err)
	case !st.Mode().IsRegular():
		return false, fmt.Errorf("export: --record %s: not a regular file (a symlink, a directory?): give a file's path", path)
	}
	prev := path + ".prev"
	for _, sfx := range []string{"-wal", "-shm", "-journal"} {
		if err := os.Remove(prev + sfx); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("export: --record %s: remove the older %s%s: %w", path, prev, sfx, err)
		}
	}
	if err := os.Rename(path, prev); err != nil {
		return false, fmt.Errorf("export: --record %s: keep the last recording as %s: %w", path, prev, err)
	}
	for _, sfx := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+sfx, prev+sfx); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("export: --record %s: keep %s%s with it: %w", path, path, sfx, err)
		}
	}
	return true, nil
}

// close ends the recording: the reading being written is finished, the
// file closed.
func (f *exportFeed) close(log *slog.Logger) {
	f.Feed.Close() // a write that failed was logged when it did
	if err := f.w.Close(); err != nil {
		log.Error("record: closing the recording", "file", f.path, "err", err)
	}
}
