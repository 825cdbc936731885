package labkit

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// eachGoFile calls fn with every Go file of the repository and its text.
func eachGoFile(t *testing.T, fn func(path string, src []byte)) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".cache" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != ".go" {
			return nil
		}
		src, err := os.ReadFile(path)
		if err == nil {
			fn(path, src)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEveryLabTestIsClean keeps the rule that every lab test calls Clean
// first, so a leak fails the test that made it.
func TestEveryLabTestIsClean(t *testing.T) {
	fn := regexp.MustCompile(`(?m)^func (Test\w+)\(t \*testing\.T\) \{\n(.*)`)
	n := 0
	eachGoFile(t, func(path string, src []byte) {
		if !bytes.HasPrefix(src, []byte("//go:build lab")) {
			return
		}
		for _, m := range fn.FindAllSubmatch(src, -1) {
			n++
			if string(bytes.TrimSpace(m[2])) != "labkit.Clean(t)" {
				t.Errorf("%s: %s does not begin with labkit.Clean(t)", path, m[1])
			}
		}
	})
	if n < 50 {
		t.Errorf("found %d lab tests; the walk missed the tree", n)
	}
}

// TestNoFileExcludedByLabTags keeps make vet's single pass whole: it
// vets with -tags lab,vm, which covers the plain build only while no
// file is built only without those tags.
func TestNoFileExcludedByLabTags(t *testing.T) {
	neg := regexp.MustCompile(`(?m)^//go:build .*!(lab|vm)\b`)
	eachGoFile(t, func(path string, src []byte) {
		if neg.Match(src) {
			t.Errorf("%s is built only without the lab or vm tag: make vet's -tags lab,vm pass skips it", path)
		}
	})
}
