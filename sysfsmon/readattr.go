package sysfsmon

import (
	"io/fs"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// attrBufs hold one page each: a sysfs attribute is at most a page
// (fs/sysfs/file.c, sysfs_kf_seq_show), so one buffer takes it whole.
var attrBufs = sync.Pool{New: func() any { b := make([]byte, 4096); return &b }}

// readAttr reads a whole sysfs or procfs file with open, read until
// end of file, and close. os.ReadFile also stats the file and, because
// kernfs files can be polled, adds each one to the runtime's epoll set
// and removes it again: seven system calls where four do, and a poll
// every second reads a hundred such files (and under emulation each
// call is dear: docs/performance.md).
func readAttr(name string) ([]byte, error) {
	fd, err := openRetry(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	bp := attrBufs.Get().(*[]byte)
	defer attrBufs.Put(bp)
	buf, n := *bp, 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...) // /proc/interrupts outgrows a page
			*bp = buf
		}
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			return append([]byte(nil), buf[:n]...), nil
		}
		n += m
	}
}

func openRetry(name string) (int, error) {
	for {
		fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// pread reads a kept counter file again from its start, opening it
// the first time.
func (c *counterFiles) pread(path string) (string, error) {
	fd, ok := c.fds[path]
	if !ok {
		var err error
		if fd, err = openRetry(path); err != nil {
			return "", err
		}
		c.fds[path] = fd
	}
	var buf [64]byte // a counter is one decimal number
	for {
		n, err := unix.Pread(fd, buf[:], 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		if n == len(buf) {
			return "", unix.EOVERFLOW // not a counter: let read report it whole
		}
		return strings.TrimRight(string(buf[:n]), "\n"), nil
	}
}

// forget closes a kept file.
func (c *counterFiles) forget(path string) {
	if fd, ok := c.fds[path]; ok {
		unix.Close(fd)
		delete(c.fds, path)
	}
}
