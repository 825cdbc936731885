package line

import (
	"errors"
	"sync"
	"syscall"
	"testing"
	"time"

	prompt "github.com/elk-language/go-prompt"
	"github.com/google/go-cmp/cmp"
)

// fakeTerm is a terminal whose reads return the given writes, one per
// read, as a paste or tmux send-keys delivers them; then EAGAIN, as the
// non-blocking tty does when nothing was typed.
type fakeTerm struct {
	mu     sync.Mutex
	writes [][]byte
}

func (f *fakeTerm) Open() error                 { return nil }
func (f *fakeTerm) Close() error                { return nil }
func (f *fakeTerm) GetWinSize() *prompt.WinSize { return &prompt.WinSize{Row: 24, Col: 80} }
func (f *fakeTerm) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.writes) == 0 {
		return 0, syscall.EAGAIN
	}
	n := copy(p, f.writes[0])
	f.writes[0] = f.writes[0][n:]
	if len(f.writes[0]) == 0 {
		f.writes = f.writes[1:]
	}
	return n, nil
}

// discardWriter renders go-prompt's screen nowhere.
type discardWriter struct{ prompt.VT100Writer }

func (*discardWriter) Flush() error { return nil }

func TestPasteReaderChunks(t *testing.T) {
	r := newPasteReader(&fakeTerm{writes: [][]byte{[]byte("open; pd\rls\r\n"), []byte("x")}})
	read := func() string {
		buf := make([]byte, 64)
		n, err := r.Read(buf)
		if errors.Is(err, syscall.EAGAIN) {
			return "EAGAIN"
		}
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		return string(buf[:n])
	}
	var got []string
	for i := 0; i < 3; i++ {
		got = append(got, read())
	}
	r.nextLine()
	for i := 0; i < 3; i++ {
		got = append(got, read())
	}
	r.nextLine()
	got = append(got, read(), read())
	r.nextLine()
	got = append(got, read(), read())
	want := []string{"open; pd", "\r", "EAGAIN", "ls", "\r", "EAGAIN", "\n", "EAGAIN", "x", "EAGAIN"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}

// TestPasteRunsLineByLine drives go-prompt itself: one read holding two
// lines and their newlines must come out of Input as two lines, not as a
// multi-line buffer waiting for another Enter.
func TestPasteRunsLineByLine(t *testing.T) {
	term := &fakeTerm{writes: [][]byte{[]byte("open; pd\rls\r")}}
	reader := newPasteReader(term)
	p := prompt.New(prompt.NoopExecutor, prompt.WithReader(reader), prompt.WithWriter(&discardWriter{}))
	var got []string
	for i := 0; i < 2; i++ {
		reader.nextLine()
		line := make(chan string, 1)
		go func() { line <- p.Input() }()
		select {
		case l := <-line:
			got = append(got, l)
		case <-time.After(20 * time.Second):
			t.Fatalf("Input did not return; lines so far %q (a pasted newline left a continuation line)", got)
		}
	}
	if diff := cmp.Diff([]string{"open; pd", "ls"}, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}
