package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

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

// exportRecording starts export --record's recording into cfg.record,
// keeping a file already there (the exporter restarted) as FILE.prev.
// A write that fails stops the recording and is logged; the exporter
// goes on.
func exportRecording(ctx context.Context, env *Env, log *slog.Logger, fsys *sysfsmon.FS, cfg exportConfig) (*exportFeed, error) {
	path := cfg.record
	if st, err := os.Lstat(path); err == nil {
		if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("export: --record %s: not a regular file (a symlink, a directory?): give a file's path", path)
		}
		if err := os.Rename(path, path+".prev"); err != nil {
			return nil, fmt.Errorf("export: --record %s: keep the last recording as %s.prev: %w", path, path, err)
		}
		for _, sfx := range []string{"-wal", "-shm"} {
			// SQLite's logs of the file kept go with it (a clean close
			// leaves none).
			_ = os.Rename(path+sfx, path+".prev"+sfx)
		}
		log.Info("record: kept the last recording", "file", path+".prev")
	}
	w, err := rec.Create(ctx, path, recordHost(env, fsys, cfg.interval), cfg.recordOpts)
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
	log.Info("record: recording", "file", path, "interval", cfg.interval, "retain", cfg.recordOpts.Retain, "max_size", cfg.recordOpts.MaxSize)
	return f, nil
}

// close ends the recording: the reading being written is finished, the
// file closed.
func (f *exportFeed) close(log *slog.Logger) {
	f.Feed.Close() // a write that failed was logged when it did
	if err := f.w.Close(); err != nil {
		log.Error("record: closing the recording", "file", f.path, "err", err)
	}
}

// recordHost is the host table of a recording made here.
func recordHost(env *Env, fsys *sysfsmon.FS, interval time.Duration) rec.Host {
	host, _ := os.Hostname()
	h := fsys.Host()
	devs, _ := fsys.DeviceNames()
	return rec.Host{Hostname: host, Kernel: h.KernelRelease, RDMACore: h.RDMACore.Version, Devices: devs, Interval: interval, Version: env.Version}
}
