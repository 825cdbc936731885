package sysfsmon

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
)

// OwnerCache looks processes up as FS.ProcessOwner does, for a reader
// that asks about the same processes every frame (the dashboard, the
// exporter): a process is known by its pid and start time
// (/proc/PID/stat), and while it lives its command line and its user's
// name are read once; its comm comes with the stat file, and what
// changes while it runs (VmPin, credentials, the cgroup it is moved to,
// RLIMIT_MEMLOCK set by prlimit) is read every time. An exec keeps the
// start time but changes the comm, which has the command line read
// again; a program that rewrites its argv (setproctitle) keeps the
// command line it was first read with. Safe for concurrent use.
type OwnerCache struct {
	f     *FS
	mu    sync.Mutex
	known map[int]ownerEntry
	// calls counts lookups; entries not looked up between two prunes
	// (at least twice as many lookups as entries apart) are dropped, so
	// a reader that asks about every live process each frame keeps them
	// and forgets the exited ones.
	calls, lastPrune, nextPrune uint64
}

type ownerEntry struct {
	start uint64
	kept  kept
	seen  uint64
}

// NewOwnerCache returns an empty cache reading f.
func (f *FS) NewOwnerCache() *OwnerCache {
	return &OwnerCache{f: f, known: map[int]ownerEntry{}}
}

// ProcessOwner is FS.ProcessOwner with the cache.
func (c *OwnerCache) ProcessOwner(tgid int) (ProcessOwner, error) {
	path := c.f.procPath(strconv.Itoa(tgid), "stat")
	s, err := c.f.read(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ProcessOwner{TGID: tgid, UID: -1}, fmt.Errorf("sysfsmon: process %d: %w", tgid, ErrNoProcess)
		}
		return ProcessOwner{TGID: tgid, UID: -1}, fmt.Errorf("sysfsmon: process %d: %w", tgid, err)
	}
	comm, start, err := parseStatStart(s)
	if err != nil {
		// Read it all, as ProcessOwner does, with the warning.
		o, oerr := c.f.ProcessOwner(tgid)
		o.Warnings = append(o.Warnings, Warning{Path: c.f.logical(path), Err: err})
		return o, oerr
	}
	c.mu.Lock()
	e, ok := c.known[tgid]
	c.mu.Unlock()
	var k *kept
	if ok && e.start == start && e.kept.comm == comm {
		k = &e.kept
	}
	o, err := c.f.processOwner(tgid, k)
	if err != nil {
		return o, err
	}
	o.Comm = comm // the comm file's, as the kernel keeps one (task->comm)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	switch {
	case k != nil:
		e.seen = c.calls
		c.known[tgid] = e
	case len(o.Warnings) == 0:
		// Read in full without a fault: its command line and user
		// stand while it lives.
		c.known[tgid] = ownerEntry{start: start, kept: kept{comm: o.Comm, cmdline: o.Cmdline, user: o.User, uid: o.UID}, seen: c.calls}
	}
	c.prune()
	return o, nil
}

// prune drops the entries not looked up since the last prune; c.mu is
// held.
func (c *OwnerCache) prune() {
	if c.calls < c.nextPrune {
		return
	}
	for pid, e := range c.known {
		if e.seen <= c.lastPrune {
			delete(c.known, pid)
		}
	}
	c.lastPrune, c.nextPrune = c.calls, c.calls+2*uint64(len(c.known))+16
}

// parseStatStart reads a process's comm and start time (in clock ticks
// after boot) from /proc/PID/stat (proc(5): "pid (comm) state ...", the
// start time is field 22). The comm may hold spaces and parentheses:
// it ends at the last ")".
func parseStatStart(data string) (comm string, start uint64, err error) {
	open, end := strings.IndexByte(data, '('), strings.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return "", 0, fmt.Errorf("stat: %q: want \"pid (comm) state ...\"", trimForError(data))
	}
	f := strings.Fields(data[end+1:])
	// f[0] is field 3, the state: field 22 is f[19].
	if len(f) < 20 {
		return "", 0, fmt.Errorf("stat: %d fields after the comm, want at least 20", len(f))
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("stat: start time %q is not a number", f[19])
	}
	return data[open+1 : end], start, nil
}

func trimForError(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}
