package front

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHistoryAdd(t *testing.T) {
	tests := []struct {
		name string
		max  int
		add  []string
		want []string
	}{
		{"empty", 3, nil, nil},
		{"in order", 3, []string{"open", "pd"}, []string{"open", "pd"}},
		{"consecutive duplicate dropped", 3, []string{"ls", "ls", "pd", "ls"}, []string{"ls", "pd", "ls"}},
		{"blank dropped", 3, []string{"", "  ", "ls"}, []string{"ls"}},
		{"trimmed", 3, []string{"  ls \r"}, []string{"ls"}},
		{"bounded keeps newest", 2, []string{"a", "b", "c"}, []string{"b", "c"}},
		{"paste adds each line", 5, []string{"open; pd\r\nls\n\nls\n"}, []string{"open; pd", "ls"}},
		{"default bound", 0, []string{"a"}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHistory(tt.max)
			for _, l := range tt.add {
				h.Add(l)
			}
			if diff := cmp.Diff(tt.want, h.Entries()); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
	h := NewHistory(0)
	for i := 0; i < DefaultHistory+5; i++ {
		h.Add(string(rune('a'+i%26)) + string(rune('a'+i/26%26)))
	}
	if got := len(h.Entries()); got != DefaultHistory {
		t.Errorf("NewHistory(0) kept %d lines, want %d", got, DefaultHistory)
	}
}

// step is one key press in a navigation test.
type step struct {
	key    string // "up" (with draft) or "down" or "reset" or "add"
	arg    string // the draft for up, the line for add
	want   string
	wantOK bool
}

func TestHistoryNavigation(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		steps   []step
	}{
		{"empty history", nil, []step{
			{key: "up", arg: "draft", want: "", wantOK: false},
			{key: "down", want: "", wantOK: false},
		}},
		{"up to the oldest and past it", []string{"a", "b", "c"}, []step{
			{key: "up", arg: "typing", want: "c", wantOK: true},
			{key: "up", arg: "c", want: "b", wantOK: true},
			{key: "up", arg: "b", want: "a", wantOK: true},
			{key: "up", arg: "a", want: "", wantOK: false},
			{key: "down", want: "b", wantOK: true},
		}},
		{"down comes back to the draft", []string{"a", "b"}, []step{
			{key: "up", arg: "half typed", want: "b", wantOK: true},
			{key: "up", arg: "b", want: "a", wantOK: true},
			{key: "down", want: "b", wantOK: true},
			{key: "down", want: "half typed", wantOK: true},
			{key: "down", want: "", wantOK: false},
			{key: "up", arg: "new draft", want: "b", wantOK: true},
			{key: "down", want: "new draft", wantOK: true},
		}},
		{"down without navigating", []string{"a"}, []step{
			{key: "down", want: "", wantOK: false},
		}},
		{"reset starts again from the newest", []string{"a", "b"}, []step{
			{key: "up", arg: "", want: "b", wantOK: true},
			{key: "up", arg: "b", want: "a", wantOK: true},
			{key: "reset"},
			{key: "up", arg: "", want: "b", wantOK: true},
		}},
		{"add ends navigation", []string{"a", "b"}, []step{
			{key: "up", arg: "", want: "b", wantOK: true},
			{key: "up", arg: "", want: "a", wantOK: true},
			{key: "add", arg: "a"},
			{key: "up", arg: "", want: "a", wantOK: true},
			{key: "up", arg: "", want: "b", wantOK: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHistory(10)
			for _, e := range tt.entries {
				h.Add(e)
			}
			for i, s := range tt.steps {
				var got string
				var ok bool
				switch s.key {
				case "up":
					got, ok = h.Prev(s.arg)
				case "down":
					got, ok = h.Next()
				case "reset":
					h.Reset()
					continue
				case "add":
					h.Add(s.arg)
					continue
				}
				if got != s.want || ok != s.wantOK {
					t.Fatalf("step %d (%s %q): got %q, %v; want %q, %v", i, s.key, s.arg, got, ok, s.want, s.wantOK)
				}
			}
		})
	}
}

func TestHistorySaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "verbscope", "history")
	h, err := LoadHistory(path, 5)
	if err != nil {
		t.Fatalf("LoadHistory of a missing file: %v, want an empty history", err)
	}
	if len(h.Entries()) != 0 {
		t.Fatalf("LoadHistory of a missing file: %q, want empty", h.Entries())
	}
	for _, l := range []string{"open", "pd", "pd", `write mr1 "a b"`, "ls"} {
		h.Add(l)
	}
	if err := h.Save(path); err != nil {
		t.Fatalf("Save: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("history file mode %o, want 600", perm)
	}
	got, err := LoadHistory(path, 5)
	if err != nil {
		t.Fatalf("LoadHistory: %v", err)
	}
	if diff := cmp.Diff(h.Entries(), got.Entries()); diff != "" {
		t.Errorf("round trip (-saved +loaded):\n%s", diff)
	}
	short, err := LoadHistory(path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`write mr1 "a b"`, "ls"}, short.Entries()); diff != "" {
		t.Errorf("LoadHistory with a smaller bound (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("Save left files behind: %v", entries)
	}
}

func TestHistoryLoadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadHistory(dir, 5); err == nil {
		t.Error("LoadHistory of a directory: no error")
	}
	if err := NewHistory(1).Save(""); err == nil {
		t.Error("Save with no path: no error")
	}
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := NewHistory(1).Save(filepath.Join(blocker, "history")); err == nil {
		t.Error("Save under a regular file: no error")
	}
}

func TestHistoryPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/x/state")
	if got, want := HistoryPath(), "/x/state/verbscope/history"; got != want {
		t.Errorf("with XDG_STATE_HOME: %q, want %q", got, want)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got, want := HistoryPath(), "/home/u/.local/state/verbscope/history"; got != want {
		t.Errorf("with HOME: %q, want %q", got, want)
	}
}

// A line too long to keep is skipped; the lines after it load, and so
// survive the next save.
func TestHistoryLongLineRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	long := strings.Repeat("x", maxHistoryLine+1)
	if err := os.WriteFile(path, []byte("open rxe0\n"+long+"\npd\n"+strings.Repeat("y", 70000)+"\ncq"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := LoadHistory(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"open rxe0", "pd", strings.Repeat("y", 70000), "cq"}
	if diff := cmp.Diff(want, h.Entries()); diff != "" {
		t.Fatalf("loaded (-want +got):\n%s", diff)
	}
	if err := h.Save(path); err != nil {
		t.Fatal(err)
	}
	again, err := LoadHistory(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again.Entries()); diff != "" {
		t.Errorf("after a save (-want +got):\n%s", diff)
	}
}

// The dashboard saves from a command's goroutine while its update loop
// adds and navigates; under -race this must be clean.
func TestHistoryConcurrentSave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	h := NewHistory(50)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			if err := h.Save(path); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := 0; i < 200; i++ {
		h.Add(fmt.Sprintf("post qp%d", i))
		h.Prev("")
		h.Next()
	}
	wg.Wait()
	if err := h.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := LoadHistory(path, 50)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h.Entries(), got.Entries()); diff != "" {
		t.Errorf("saved (-want +got):\n%s", diff)
	}
}

// failingFile reads data, then fails with err: a history file that
// cannot be read whole (EIO from the disk, not a line too long).
type failingFile struct {
	r   io.Reader
	err error
}

func (f *failingFile) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func (f *failingFile) Close() error { return nil }

// TestHistoryUnreadNotSaved: a history file that could not be read
// whole (an error at open, or in the middle) is never saved over: the
// lines read so far, with this session's, would replace the rest.
func TestHistoryUnreadNotSaved(t *testing.T) {
	const whole = "open rxe0\npd\ncq\nqp type=rc cq=cq1\n"
	for _, tc := range []struct {
		name string
		open func(string) (io.ReadCloser, error)
		read []string
	}{
		{"EIO half-way", func(string) (io.ReadCloser, error) {
			return &failingFile{r: strings.NewReader("open rxe0\npd\n"), err: syscall.EIO}, nil
		}, []string{"open rxe0", "pd"}},
		{"EACCES at open", func(string) (io.ReadCloser, error) { return nil, syscall.EACCES }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "history")
			if err := os.WriteFile(path, []byte(whole), 0o600); err != nil {
				t.Fatal(err)
			}
			openHistory = tc.open
			defer func() { openHistory = func(p string) (io.ReadCloser, error) { return os.Open(p) } }()
			h, err := LoadHistory(path, 0)
			if err == nil {
				t.Fatal("LoadHistory: no error for a file that could not be read whole")
			}
			if diff := cmp.Diff(tc.read, h.Entries()); diff != "" {
				t.Errorf("what was read (-want +got):\n%s", diff)
			}
			h.Add("modify qp1 init")
			if err := h.Save(path); err == nil || !strings.Contains(err.Error(), "could not be read whole") {
				t.Errorf("Save over the unread file: %v, want a refusal", err)
			}
			if b, _ := os.ReadFile(path); string(b) != whole {
				t.Errorf("the file was replaced:\n%s", b)
			}
			// Elsewhere the history saves as ever.
			if err := h.Save(path + ".elsewhere"); err != nil {
				t.Errorf("Save to another file: %v", err)
			}
		})
	}
}
