package shell

import (
	"strings"
	"testing"

	"github.com/verbscope/verbscope/shell/front"
)

// helpExamples are the lines of a command's "example:" or "examples:"
// section: each indented two spaces, up to the end of the help. They are
// written to run in order on a fresh session (the lab test runs them).
func helpExamples(c *command) []string {
	_, section, ok := strings.Cut(c.help, "example:\n")
	if !ok {
		_, section, ok = strings.Cut(c.help, "examples:\n")
	}
	if !ok {
		return nil
	}
	var out []string
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		out = append(out, strings.TrimSpace(l))
	}
	return out
}

// TestHelpExamplesParse checks on the build host what can be checked
// without a device: every example is commands the shell knows, written
// as they parse. (The lab runs them: TestHelpExamplesRun.)
func TestHelpExamplesParse(t *testing.T) {
	for _, c := range commandList() {
		exs := helpExamples(c)
		if len(exs) == 0 && c.name != "help" {
			t.Errorf("help %s has no examples section", c.name)
		}
		usesIt := false
		for _, ex := range exs {
			for _, l := range front.Lines(ex) {
				toks, err := tokenize(l.Text, false)
				if err != nil {
					t.Errorf("help %s: %q: %v", c.name, l.Text, err)
					continue
				}
				cmd := lookupCommand(toks[0].text)
				if cmd == nil {
					t.Errorf("help %s: %q: no command %q", c.name, l.Text, toks[0].text)
					continue
				}
				if _, err := parseArgs(cmd, toks[1:]); err != nil {
					t.Errorf("help %s: %q: %v", c.name, l.Text, err)
				}
				usesIt = usesIt || cmd == c
			}
		}
		if len(exs) > 0 && !usesIt {
			t.Errorf("help %s: no example uses %s", c.name, c.name)
		}
	}
}
