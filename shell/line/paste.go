package line

import (
	"bytes"
	"sync"
	"syscall"

	prompt "github.com/elk-language/go-prompt"
)

// pasteReader makes pasted lines run one by one in go-prompt.
//
// go-prompt (v1.3.1) turns each read of the terminal into one key: a read
// that is exactly "\r" is Enter, anything else is text to insert, with
// "\r" translated to "\n". A paste, or tmux send-keys 'ls' Enter, arrives
// in one read as "ls\r": go-prompt inserts "ls\n" into a multi-line
// buffer (the "......" continuation line) and runs nothing. This reader
// hands go-prompt the text before a newline, then the newline alone (an
// Enter), and holds the rest until the adapter starts the next line:
// Input returns after the Enter and drops whatever its reading goroutine
// read meanwhile, so nothing may be read until the next Input. The hold
// has no time limit (a slow render under TCG outlasted one): go-prompt
// always ends the line on an Enter key (its default ExecuteOnEnter
// callback executes, and a selected completion is inserted first, not
// instead).
type pasteReader struct {
	prompt.Reader

	mu      sync.Mutex
	pending []byte // read from the terminal, not yet given to go-prompt
	held    bool   // an Enter was given: nothing more until nextLine
}

func newPasteReader(r prompt.Reader) *pasteReader { return &pasteReader{Reader: r} }

// nextLine ends the hold: the adapter is about to call Input.
func (r *pasteReader) nextLine() {
	r.mu.Lock()
	r.held = false
	r.mu.Unlock()
}

// Read gives go-prompt at most one line's text or one newline at a time.
// While holding it answers EAGAIN, as the non-blocking terminal does when
// nothing was typed.
func (r *pasteReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held {
		return 0, syscall.EAGAIN
	}
	if len(r.pending) == 0 {
		n, err := r.Reader.Read(p)
		if n <= 0 {
			return n, err
		}
		r.pending = append(r.pending, p[:n]...)
	}
	chunk := nextChunk(r.pending)
	n := copy(p, chunk)
	r.pending = r.pending[n:]
	if len(r.pending) == 0 {
		r.pending = nil
	}
	if n == 1 && isNewline(p[0]) {
		r.held = true
	}
	return n, nil
}

// nextChunk is what go-prompt may see next of b: a lone newline, or the
// text up to (not including) the next newline.
func nextChunk(b []byte) []byte {
	i := bytes.IndexAny(b, "\r\n")
	switch {
	case i < 0:
		return b
	case i == 0:
		return b[:1]
	}
	return b[:i]
}

func isNewline(c byte) bool { return c == '\r' || c == '\n' }
