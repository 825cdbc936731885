package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirOthersCannotWrite: a session directory another user can write
// (mode 0777, 0770) or owns is neither read by a recorder's Tail nor
// written by a shell, and CheckDir says why; the same directory made
// private again is read.
func TestDirOthersCannotWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	line := `{"t":"2026-12-01T02:47:00Z","pid":7,"face":"dash","kind":"in","text":"planted"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "7-1.jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	type owner struct {
		uid  int
		says string
	}
	cases := map[os.FileMode]owner{0o777: {os.Geteuid(), "other users can write"}, 0o770: {os.Geteuid(), "mode 0770"}}
	if os.Geteuid() == 0 {
		// Root's recorder and a folder another user made first.
		cases[0o700] = owner{65534, "belongs to uid 65534"}
	}
	for mode, o := range cases {
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, o.uid, -1); err != nil {
			t.Fatal(err)
		}
		if err := CheckDir(dir); err == nil || !strings.Contains(err.Error(), o.says) {
			t.Errorf("CheckDir of a %04o folder of uid %d: %v; want it refused, saying %q", mode, o.uid, err, o.says)
		}
		if got := NewTail(dir).Read(); len(got) != 0 {
			t.Errorf("a %04o folder of uid %d: the recorder read %+v", mode, o.uid, got)
		}
		if w := openWriter(dir, "script"); w != nil {
			w.Close()
			t.Errorf("a shell wrote its transcript into a %04o folder of uid %d", mode, o.uid)
		}
	}
	os.Chown(dir, os.Geteuid(), -1)
	os.Chmod(dir, 0o700)
	if got := NewTail(dir).Read(); len(got) != 1 || got[0].Text != "planted" {
		t.Errorf("the private folder's lines: %+v", got)
	}
	if err := CheckDir(filepath.Join(dir, "7-1.jsonl")); err == nil {
		t.Errorf("CheckDir took a file")
	}
}
