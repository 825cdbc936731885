package transcript

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// maxRead bounds what Tail reads of one file at a time; the rest comes
// at the next Read.
const maxRead = 1 << 20

// Tail reads the lines added to a session directory's transcripts
// since its last Read: files appear (a shell starts) and vanish (it
// exits) between reads. It is not safe for concurrent use.
type Tail struct {
	dir  string
	offs map[string]int64
}

// NewTail follows dir; "" follows nothing.
func NewTail(dir string) *Tail { return &Tail{dir: dir, offs: map[string]int64{}} }

// Read returns the complete lines written since the last Read, in file
// order and within a file in order. A line that does not parse is
// skipped; a file that cannot be read is left for the next Read. A
// directory that fails CheckDir (another user's, or one others can
// write) is not read at all.
func (t *Tail) Read() []Line {
	if t == nil || t.dir == "" || CheckDir(t.dir) != nil {
		return nil
	}
	names, _ := filepath.Glob(filepath.Join(t.dir, "*.jsonl"))
	sort.Strings(names)
	seen := map[string]bool{}
	var out []Line
	for _, name := range names {
		seen[name] = true
		out = append(out, t.readFile(name)...)
	}
	for name := range t.offs {
		if !seen[name] {
			delete(t.offs, name) // its shell exited
		}
	}
	return out
}

// readFile reads name's complete lines from where the last read ended.
func (t *Tail) readFile(name string) []Line {
	// O_NOFOLLOW: a link planted in the directory is not read through.
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	off := t.offs[name]
	if st.Size() < off {
		off = 0 // cut short: read again
	}
	buf := make([]byte, min(st.Size()-off, maxRead))
	n, err := f.ReadAt(buf, off)
	if err != nil && err != io.EOF {
		return nil
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		if len(buf) == maxRead {
			t.offs[name] = off + int64(n) // a line longer than any written: skipped
		}
		return nil
	}
	t.offs[name] = off + int64(end) + 1
	var out []Line
	for _, l := range strings.Split(string(buf[:end]), "\n") {
		if line, err := parseLine([]byte(l)); err == nil {
			out = append(out, line)
		}
	}
	return out
}
