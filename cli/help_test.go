package cli

import (
	"io/fs"
	"strings"
	"testing"
)

// TestHelpTexts: every command's help text came from its file, with
// every stand-in filled in, and every file under help/ is used.
func TestHelpTexts(t *testing.T) {
	used := map[string]bool{"views-json": true} // through {{views-json}}
	for _, c := range commands() {
		if strings.Contains(c.Help, "(no help text") {
			t.Errorf("%s: %s", c.Name, c.Help)
		}
		if strings.Contains(c.Help, "{{") {
			t.Errorf("%s: a stand-in left in its help: %q", c.Name, c.Help)
		}
	}
	files, err := fs.Glob(helpFiles, "help/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("help/*.txt: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "help/"), ".txt")
		for _, c := range commands() {
			if strings.Contains(c.Help, helpText(name)) {
				used[name] = true
			}
		}
		if !used[name] {
			t.Errorf("%s is no command's help", f)
		}
	}
}
