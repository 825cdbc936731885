package transcript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/shell/front"
)

// fakeEngine answers "ok: CMD", or refuses a command named "bad".
type fakeEngine struct {
	front.Engine
	closed bool
}

func (f *fakeEngine) Exec(_ context.Context, cmd string) (front.Result, error) {
	if cmd == "bad" {
		return front.Result{}, &front.Error{What: "bad: no such command", Fix: "type help"}
	}
	return front.Result{Command: cmd, Text: "ok: " + cmd}, nil
}

func (f *fakeEngine) Close() error { f.closed = true; return nil }

type kt struct{ Kind, Text string }

func kinds(ls []Line) []kt {
	var out []kt
	for _, l := range ls {
		out = append(out, kt{l.Kind, l.Text})
	}
	return out
}

// TestWrapTail: a wrapped shell's commands and answers (an error as a
// terminal shows it) reach a Tail of the directory once each, the file
// private, the directory too; Close removes the file and the Tail
// forgets it.
func TestWrapTail(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	t.Setenv(envDir, dir)
	fe := &fakeEngine{}
	e := Wrap(fe, "script")
	tail := NewTail(dir)
	if got := tail.Read(); got != nil {
		t.Fatalf("before any command: %v", got)
	}
	ctx := context.Background()
	e.Exec(ctx, "open")
	if _, err := e.Exec(ctx, "bad"); err == nil {
		t.Fatal("the refusal was lost")
	}
	got := tail.Read()
	want := []kt{{"in", "open"}, {"out", "ok: open"}, {"in", "bad"}, {"out", "bad: no such command\n  fix: type help"}}
	if diff := cmp.Diff(want, kinds(got)); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	for _, l := range got {
		if l.PID != os.Getpid() || l.Face != "script" || l.Time.IsZero() {
			t.Errorf("line %+v: want this pid, face script, a time", l)
		}
	}
	if more := tail.Read(); len(more) != 0 {
		t.Errorf("read again: %v, want nothing new", more)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("files %v, want one", files)
	}
	for p, mode := range map[string]os.FileMode{dir: os.ModeDir | 0o700, files[0]: 0o600} {
		if st, err := os.Stat(p); err != nil || st.Mode() != mode {
			t.Errorf("%s: mode %v (%v), want %v", p, st.Mode(), err, mode)
		}
	}
	e.Exec(ctx, "pd")
	e.Close()
	if !fe.closed {
		t.Error("the shell was not closed")
	}
	if _, err := os.Stat(files[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the transcript is left after Close: %v", err)
	}
	if got := tail.Read(); got != nil || len(tail.offs) != 0 {
		t.Errorf("after Close: lines %v, offsets %v", got, tail.offs)
	}
}

// TestWrapNoDir: without a usable directory the shell runs as it is.
func TestWrapNoDir(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	t.Setenv(envDir, filepath.Join(file, "sessions"))
	fe := &fakeEngine{}
	if e := Wrap(fe, "prompt"); e != front.Engine(fe) {
		t.Errorf("Wrap under a file: %T, want the shell itself", e)
	}
	var w *writer
	w.Write(KindIn, "x") // a nil writer writes nothing, without a panic
	w.Close()
}

// TestTailDamage: a corrupt line, a line cut short and a half-written
// last line are skipped, the good ones around them read; the half line
// is read once finished.
func TestTailDamage(t *testing.T) {
	dir := t.TempDir()
	good := `{"t":"2026-12-01T02:47:00Z","pid":7,"face":"dash","kind":"in","text":"open"}`
	body := good + "\n{not json\n" + `{"t":"2026-12-01T02:47:00Z","pid":7,"kind":"what"}` + "\n\x00\x01\n" + good[:20]
	os.WriteFile(filepath.Join(dir, "7-1.jsonl"), []byte(body), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(dir, "8-1.jsonl"))
	tail := NewTail(dir)
	if got := tail.Read(); len(got) != 1 || got[0].Text != "open" {
		t.Fatalf("lines %+v, want the one good line", got)
	}
	f, _ := os.OpenFile(filepath.Join(dir, "7-1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(good[20:] + "\n")
	f.Close()
	if got := tail.Read(); len(got) != 1 || got[0].PID != 7 {
		t.Errorf("the finished line: %+v", got)
	}
	// A file cut shorter than where it was read to is read again from
	// its start.
	os.WriteFile(filepath.Join(dir, "7-1.jsonl"), []byte(good+"\n"), 0o600)
	if got := tail.Read(); len(got) != 1 {
		t.Errorf("the shorter file: %d lines, want 1", len(got))
	}
}

// TestWriterBounds: an answer is cut at maxText and says so; past
// maxBytes nothing more is written.
func TestWriterBounds(t *testing.T) {
	dir := t.TempDir()
	w := openWriter(dir, "script")
	defer w.Close()
	w.Write(KindOut, strings.Repeat("x", maxText+100))
	lines := NewTail(dir).Read()
	if len(lines) != 1 || len(lines[0].Text) != maxText+len(truncated) || !strings.HasSuffix(lines[0].Text, truncated) {
		t.Fatalf("a long answer: %d lines, the first %d bytes", len(lines), len(lines[0].Text))
	}
	for range maxBytes / maxText * 2 {
		w.Write(KindOut, strings.Repeat("y", maxText))
	}
	st, _ := os.Stat(w.path)
	if st.Size() > maxBytes {
		t.Errorf("the transcript grew to %d bytes, over %d", st.Size(), maxBytes)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"t":"2026-12-01T02:47:00Z","pid":7,"face":"dash","kind":"in","text":"open"}`))
	f.Add([]byte(`{"t":1,"pid":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := parseLine(b)
		if err == nil && (l.PID <= 0 || (l.Kind != KindIn && l.Kind != KindOut)) {
			t.Errorf("Parse took %q as %+v", b, l)
		}
	})
}

// FuzzTail: whatever a transcript file holds, Tail reads it without a
// panic and returns only lines that parse.
func FuzzTail(f *testing.F) {
	f.Add([]byte(`{"t":"2026-12-01T02:47:00Z","pid":7,"face":"dash","kind":"in","text":"open"}` + "\n{\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "1-1.jsonl"), b, 0o600)
		for _, l := range NewTail(dir).Read() {
			if l.PID <= 0 {
				t.Errorf("Tail read %+v from %q", l, b)
			}
		}
	})
}
