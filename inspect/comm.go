package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// commCache resolves the command name of a process, as iproute2's
// get_task_name (lib/fs.c) does for every user object: the kernel sends
// only RDMA_NLDEV_ATTR_RES_PID for user objects ("the user is supposed to
// read /proc/PID/comm", rdma_netlink.h). One dump of 10,000 QPs of one
// process then reads the file once. A cache lives for one call.
type commCache struct {
	root  string
	names map[uint32]commEntry
}

type commEntry struct {
	name string
	ok   bool
	tgid uint32
	// owner is what /proc/PID/status says of the task: OwnerLive,
	// OwnerZombie, or OwnerGone when there is no such task.
	owner Owner
}

func newCommCache(root string) *commCache {
	return &commCache{root: root}
}

// lookup returns the process's comm without the trailing newline, and
// false when the process is gone (iproute2 then prints no comm at all).
func (c *commCache) lookup(pid uint32) (string, bool) {
	e := c.entry(pid)
	return e.name, e.ok
}

// tgid returns the thread group (the process) of a task: the kernel
// records the thread that created an object (task_pid_vnr of
// restrack's task), so the pid of an object of a multi-threaded program
// is a thread id. Zero when unknown.
func (c *commCache) tgid(pid uint32) uint32 { return c.entry(pid).tgid }

// owner classifies a task the kernel named as an object's pid.
func (c *commCache) owner(pid uint32) Owner { return c.entry(pid).owner }

// statusField returns the value of one "Key:\tvalue" line of
// /proc/PID/status, trimmed; empty when it is missing.
func statusField(b []byte, key string) string {
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && string(k) == key {
			return string(bytes.TrimSpace(v))
		}
	}
	return ""
}

func (c *commCache) entry(pid uint32) commEntry {
	if pid == 0 {
		return commEntry{}
	}
	if e, ok := c.names[pid]; ok {
		return e
	}
	if c.names == nil {
		c.names = make(map[uint32]commEntry)
	}
	var e commEntry
	dir := filepath.Join(c.root, strconv.FormatUint(uint64(pid), 10))
	if b, err := os.ReadFile(filepath.Join(dir, "comm")); err == nil {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[:i]
		}
		e = commEntry{name: string(b), ok: true}
	}
	e.owner = OwnerGone
	if b, err := os.ReadFile(filepath.Join(dir, "status")); err == nil {
		if v, err := strconv.ParseUint(statusField(b, "Tgid"), 10, 32); err == nil {
			e.tgid = uint32(v)
		}
		// "State:\tZ (zombie)" (fs/proc/array.c task_state); X (dead)
		// is a task being reaped.
		switch st := statusField(b, "State"); {
		case strings.HasPrefix(st, "Z"), strings.HasPrefix(st, "X"):
			e.owner = OwnerZombie
		default:
			e.owner = OwnerLive
		}
	}
	c.names[pid] = e
	return e
}
