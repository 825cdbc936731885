package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
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
}

func newCommCache(root string) *commCache {
	return &commCache{root: root}
}

// lookup returns the process's comm without the trailing newline, and
// false when the process is gone (iproute2 then prints no comm at all).
func (c *commCache) lookup(pid uint32) (string, bool) {
	if pid == 0 {
		return "", false
	}
	if e, ok := c.names[pid]; ok {
		return e.name, e.ok
	}
	if c.names == nil {
		c.names = make(map[uint32]commEntry)
	}
	var e commEntry
	if b, err := os.ReadFile(filepath.Join(c.root, strconv.FormatUint(uint64(pid), 10), "comm")); err == nil {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[:i]
		}
		e = commEntry{name: string(b), ok: true}
	}
	c.names[pid] = e
	return e.name, e.ok
}
