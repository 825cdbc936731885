package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &Env{Stdout: &out, Stderr: &errb, Version: "v1.2.3"})
	return code, out.String(), errb.String()
}

func TestCLI(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout []string // substrings
		stderr []string
	}{
		{nil, 0, []string{"Usage: verbscope COMMAND", "lab", "version"}, nil},
		{[]string{"help"}, 0, []string{"Commands:"}, nil},
		{[]string{"help", "lab"}, 0, []string{"Usage: verbscope lab", "--pair", "--share folder", "Examples:"}, nil},
		{[]string{"lab", "--help"}, 0, []string{"Usage: verbscope lab"}, nil},
		{[]string{"version"}, 0, []string{"verbscope v1.2.3", "verbs: "}, nil},
		{[]string{"--version"}, 0, []string{"verbscope v1.2.3"}, nil},
		{[]string{"version", "x"}, 2, nil, []string{"takes no arguments", "usage: verbscope version"}},
		{[]string{"nope"}, 2, nil, []string{`no command "nope"`}},
		{[]string{"help", "nope"}, 2, nil, []string{`no command "nope"`}},
		{[]string{"lab", "--bogus"}, 2, nil, []string{"flag provided but not defined: -bogus", "usage: verbscope lab"}},
		{[]string{"lab", "-a", "x"}, 2, nil, []string{"-a and -b go with --pair"}},
		{[]string{"lab", "--pair", "-a", "x"}, 2, nil, []string{"--pair needs -a COMMAND and -b COMMAND"}},
		{[]string{"export", "--collector.owners=5", "--collector.owners.by=process"}, 2, nil, []string{`--collector.owners.by: group owners by "process": want place, unit, container or pod`}},
		{[]string{"export", "--retain", "1h"}, 2, nil, []string{"--retain and --max-size bound a recording: give --record FILE too"}},
		{[]string{"export", "--record", "x.vsrec", "--max-size", "1XB"}, 2, nil, []string{`--max-size "1XB": want a size such as 1GiB`}},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d (stderr %q)", tc.args, code, tc.code, stderr)
		}
		for _, s := range tc.stdout {
			if !strings.Contains(stdout, s) {
				t.Errorf("%v: stdout lacks %q:\n%s", tc.args, s, stdout)
			}
		}
		for _, s := range tc.stderr {
			if !strings.Contains(stderr, s) {
				t.Errorf("%v: stderr lacks %q:\n%s", tc.args, s, stderr)
			}
		}
	}
}

// TestRegistryNames holds each command's registered name to its own:
// lookup finds a command by the name it was registered under.
func TestRegistryNames(t *testing.T) {
	for name, c := range registry {
		if got := c().Name; got != name {
			t.Errorf("registered as %q, the command calls itself %q", name, got)
		}
	}
}
