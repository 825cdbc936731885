package lab

import (
	"fmt"
	"io"
	"io/fs"
	"syscall"
)

// cpioWriter writes the "newc" (SVR4, no CRC) cpio format the kernel
// unpacks as an initramfs (Documentation/driver-api/early-userspace/
// buffer-format.rst). Uncompressed on purpose: decompressing under TCG
// costs more than reading the extra megabytes.
type cpioWriter struct {
	w     io.Writer
	ino   uint32
	n     int64
	err   error
	mtime int64
}

func newCPIOWriter(w io.Writer) *cpioWriter {
	// A fixed mtime keeps the archive byte-for-byte reproducible.
	return &cpioWriter{w: w, ino: 1, mtime: 1}
}

// cpioMode converts a Go file mode to the st_mode bits cpio stores.
func cpioMode(m fs.FileMode) uint32 {
	perm := uint32(m.Perm())
	switch {
	case m&fs.ModeDir != 0:
		return syscall.S_IFDIR | perm
	case m&fs.ModeSymlink != 0:
		return syscall.S_IFLNK | 0o777
	default:
		return syscall.S_IFREG | perm
	}
}

func (c *cpioWriter) write(b []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
}

func (c *cpioWriter) pad() {
	if r := c.n % 4; r != 0 {
		c.write(make([]byte, 4-r))
	}
}

// header writes one entry header and its name; data must follow.
func (c *cpioWriter) header(name string, mode uint32, size int) {
	ino := c.ino
	c.ino++
	nlink := 1
	if mode&syscall.S_IFMT == syscall.S_IFDIR {
		nlink = 2
	}
	h := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		ino, mode, 0, 0, nlink, c.mtime, size, 0, 0, 0, 0, len(name)+1, 0)
	c.write([]byte(h))
	c.write([]byte(name))
	c.write([]byte{0})
	c.pad()
}

// Add writes one entry: a directory, a symlink to link, or a file holding data.
func (c *cpioWriter) Add(name string, mode fs.FileMode, data []byte, link string) error {
	m := cpioMode(mode)
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		c.header(name, m, 0)
	case syscall.S_IFLNK:
		c.header(name, m, len(link))
		c.write([]byte(link))
		c.pad()
	default:
		c.header(name, m, len(data))
		c.write(data)
		c.pad()
	}
	return c.err
}

// Close writes the trailer entry that ends the archive.
func (c *cpioWriter) Close() error {
	c.header("TRAILER!!!", 0, 0)
	return c.err
}
