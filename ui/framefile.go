package ui

import (
	"os"
	"path/filepath"

	"github.com/charmbracelet/x/ansi"
)

// frameFile keeps the file the dashboard writes each new frame to, as
// text (escape sequences stripped), for tests that compare what a
// terminal shows with what View drew: the terminal is right when the
// two agree once the screen settles.
type frameFile struct {
	path string
	last string
}

// write puts frame in the file if it differs from the last one written.
// The frame goes to a temporary file renamed over the old one, so a
// reader never sees half a frame. Errors are dropped: the file is a
// test's window into the dashboard, never a reason to stop drawing.
func (f *frameFile) write(frame string) {
	if f == nil || f.path == "" || frame == f.last {
		return
	}
	f.last = frame
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".frame-*")
	if err != nil {
		return
	}
	_, err = tmp.WriteString(ansi.Strip(frame))
	if cerr := tmp.Close(); err != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), f.path) != nil {
		os.Remove(tmp.Name())
	}
}
