package doccheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUndocumented(t *testing.T) {
	dir := t.TempDir()
	src := `package p

// Doc is documented.
type Doc int

type Bare int

// String is documented.
func (Doc) String() string { return "" }

func (Bare) String() string { return "" }

func (unexported) String() string { return "" }

type unexported int

// Group is documented as a whole.
const (
	A = 1
	B = 2
)

var C = 3

// F is documented.
func F() {}

func G() {}
`
	os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644)
	os.WriteFile(filepath.Join(dir, "p_test.go"), []byte("package p\n\nfunc TestX() {}\n"), 0o644)
	got, err := undocumented(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "p.go")
	want := []string{f + ": C", f + ": func G", f + ": func String", f + ": type Bare"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
