package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verbscope/verbscope/internal/privfile"
)

// maxText bounds one line's text: a longer answer (a dump of a large
// MR) is cut there, and says so.
const maxText = 16 << 10

// maxBytes bounds a transcript file: past it the session goes on
// unrecorded.
const maxBytes = 4 << 20

// truncated ends a text cut at maxText.
const truncated = "\n… (cut: the transcript keeps 16 KiB of an answer)"

// writer appends a shell's lines to its file. It is safe for
// concurrent use (the dashboard's pane runs commands in Cmds). A nil
// writer writes nothing.
type writer struct {
	mu      sync.Mutex
	f       *os.File
	path    string
	face    string
	pid     int
	written int
}

// seq tells apart the files of one process (the dashboard's pane and
// the course it may start).
var seq atomic.Int64

// openWriter starts the transcript of a shell of this process, whose face is
// prompt, script or dash, in dir (Dir when ""). It returns nil when
// there is no directory or it cannot be written: the shell runs
// without a transcript.
func openWriter(dir, face string) *writer {
	if dir == "" {
		dir = Dir()
	}
	if dir == "" || makeDir(dir) != nil {
		return nil
	}
	pid := os.Getpid()
	// The start time in the name: a reused pid names a new file, which
	// a Tail reads from its start.
	path := filepath.Join(dir, fmt.Sprintf("%d-%d-%d.jsonl", pid, seq.Add(1), time.Now().UnixNano()))
	f, err := privfile.Create(path, false)
	if err != nil {
		return nil
	}
	return &writer{f: f, path: path, face: face, pid: pid}
}

// Write appends a line of kind KindIn or KindOut.
func (w *writer) Write(kind, text string) {
	if w == nil {
		return
	}
	if len(text) > maxText {
		text = text[:maxText] + truncated
	}
	b, err := json.Marshal(Line{Time: time.Now(), PID: w.pid, Face: w.face, Kind: kind, Text: text})
	if err != nil {
		return
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil || w.written+len(b) > maxBytes {
		return
	}
	n, _ := w.f.Write(b)
	w.written += n
}

// Close ends the transcript and removes its file: the shell exited
// cleanly, and what a recorder read of it is in the recording.
func (w *writer) Close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return
	}
	w.f.Close()
	os.Remove(w.path)
	w.f = nil
}
