package front

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// DefaultHistory is how many lines a History keeps when not told.
const DefaultHistory = 1000

// maxHistoryLine is the longest line LoadHistory keeps: far more than
// anyone types or pastes at a prompt, little enough that a corrupt or
// hostile file cannot fill memory. Longer lines are skipped, and the
// lines after them kept.
const maxHistoryLine = 1 << 20

// History is the lines a prompt ran, oldest first, bounded, without
// consecutive duplicates, with ↑/↓ navigation that keeps the line being
// typed (the draft) to come back to. It is safe for concurrent use: the
// dashboard saves it from a command's goroutine while its update loop
// adds to it.
type History struct {
	mu      sync.Mutex
	max     int
	entries []string
	pos     int // navigation: index into entries; len(entries) = not navigating
	draft   string
	// unread is the file LoadHistory could not read whole, and why:
	// Save refuses to replace it with the part that was read.
	unread    string
	unreadErr error
}

// NewHistory returns an empty history keeping at most max lines (max <= 0
// means DefaultHistory).
func NewHistory(max int) *History {
	if max <= 0 {
		max = DefaultHistory
	}
	return &History{max: max}
}

// openHistory opens a history file (a test's reader that fails).
var openHistory = func(path string) (io.ReadCloser, error) { return os.Open(path) }

// LoadHistory reads a history saved by Save, keeping its last max lines.
// A missing file is an empty history, not an error; a line longer than
// maxHistoryLine is skipped, so the lines after it survive the next Save.
// A file that cannot be read whole (EACCES, EIO, a directory) gives the
// lines read so far and an error, and the history will not Save over
// it: that would replace the whole with the part.
func LoadHistory(path string, max int) (*History, error) {
	h := NewHistory(max)
	f, err := openHistory(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		h.unread, h.unreadErr = path, err
		return h, fmt.Errorf("front: load history: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for {
		line, ok, err := readLine(r, maxHistoryLine)
		if ok {
			h.Add(string(line))
		}
		if errors.Is(err, io.EOF) {
			return h, nil
		}
		if err != nil {
			h.unread, h.unreadErr = path, err
			return h, fmt.Errorf("front: load history %s: %w", path, err)
		}
	}
}

// readLine reads up to and including the next newline; ok is false for
// a line longer than max, which is read past but not kept.
func readLine(r *bufio.Reader, max int) (line []byte, ok bool, err error) {
	ok = true
	for {
		frag, err := r.ReadSlice('\n')
		if ok && len(line)+len(frag) <= max {
			line = append(line, frag...)
		} else {
			ok, line = false, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, ok && len(line) > 0, err
		}
	}
}

// Save writes the history to path, one line each, creating the parent
// directories; the file is private (0600), since commands may name keys
// and peers. It replaces the file whole (a temporary file renamed), so a
// crash never leaves half a history.
func (h *History) Save(path string) error {
	if path == "" {
		return errors.New("front: save history: no path (set $XDG_STATE_HOME or $HOME)")
	}
	h.mu.Lock()
	unread, why := h.unread, h.unreadErr
	h.mu.Unlock()
	if unread != "" && filepath.Clean(unread) == filepath.Clean(path) {
		return fmt.Errorf("front: save history %s: not saved: it could not be read whole (%v), and saving would replace it with the part that was; fix the file (or move it away) and the next session saves again", path, why)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("front: save history: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".history-*")
	if err != nil {
		return fmt.Errorf("front: save history: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, a no-op
	w := bufio.NewWriter(tmp)
	for _, e := range h.Entries() {
		w.WriteString(e)
		w.WriteByte('\n')
	}
	err = w.Flush()
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("front: save history %s: %w", path, err)
	}
	return nil
}

// Add records a line that ran and ends any navigation. A paste of several
// lines adds each; blank lines and a repeat of the newest entry are
// dropped; the oldest entries go when the bound is reached.
func (h *History) Add(line string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, l := range strings.Split(line, "\n") {
		l = strings.TrimSpace(strings.TrimSuffix(l, "\r"))
		if l == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == l) {
			continue
		}
		h.entries = append(h.entries, l)
	}
	if over := len(h.entries) - h.max; over > 0 {
		h.entries = append([]string(nil), h.entries[over:]...)
	}
	h.reset()
}

// Entries returns the lines, oldest first (a copy).
func (h *History) Entries() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.entries...)
}

// Prev is ↑: the next older entry. On the first step it remembers current
// (the line being typed) as the draft Next comes back to. false means
// there is nothing older; leave the line as it is.
func (h *History) Prev(current string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pos == len(h.entries) {
		h.draft = current
	}
	if h.pos == 0 {
		return "", false
	}
	h.pos--
	return h.entries[h.pos], true
}

// Next is ↓: the next newer entry; past the newest, the draft, which ends
// the navigation. false means there is no navigation to go down in.
func (h *History) Next() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pos >= len(h.entries) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.entries) {
		d := h.draft
		h.draft = ""
		return d, true
	}
	return h.entries[h.pos], true
}

// Reset ends the navigation (after a line is run): the next Prev starts
// again from the newest entry.
func (h *History) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reset()
}

func (h *History) reset() {
	h.pos = len(h.entries)
	h.draft = ""
}

// HistoryPath is the file `verbscope shell` keeps its history in:
// $XDG_STATE_HOME/verbscope/history, or ~/.local/state/verbscope/history.
// It is "" when neither $XDG_STATE_HOME nor a home directory is known.
func HistoryPath() string { return StatePath("history") }

// StatePath is a file of verbscope's state (the XDG Base Directory
// spec's $XDG_STATE_HOME): $XDG_STATE_HOME/verbscope/NAME, or
// ~/.local/state/verbscope/NAME; "" when neither is known.
func StatePath(name string) string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "verbscope", name)
}
