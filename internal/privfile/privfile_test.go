package privfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestCreate(t *testing.T) {
	old := syscall.Umask(0o022) // a root shell's usual umask; the file must still be 0600
	defer syscall.Umask(old)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "planted"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		force      bool
		wantErr    string // "" = created
	}{
		{"new file", filepath.Join(dir, "new"), false, ""},
		{"existing file", target, false, "exists: not overwritten (pass --force"},
		{"existing file, --force", target, true, ""},
		{"symlink", link, false, "symbolic link: not followed"},
		{"symlink, --force", link, true, "symbolic link: not followed"},
		{"dangling symlink", dangling, false, "symbolic link: not followed"},
		{"directory, --force", dir, true, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Create(tc.path, tc.force)
			if tc.wantErr != "" {
				if err == nil {
					f.Close()
					t.Fatalf("created %s, want an error %q", tc.path, tc.wantErr)
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %q, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("recording"); err != nil {
				t.Fatal(err)
			}
			st, err := os.Lstat(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode() != 0o600 {
				t.Errorf("mode %v, want -rw-------", st.Mode())
			}
		})
	}
	// Nothing behind a link was touched.
	if b, _ := os.ReadFile(target); string(b) != "recording" {
		t.Errorf("target holds %q after --force replaced it", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "planted")); err == nil {
		t.Error("the dangling link's target was created")
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
}
