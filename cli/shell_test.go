package cli

import (
	"strings"
	"testing"
)

// TestGIDIndexFlag: the lab's LAB_GID_INDEX is no default outside it,
// and a negative --gid-index is a usage error.
func TestGIDIndexFlag(t *testing.T) {
	t.Setenv("LAB_GID_INDEX", "x")
	if code, _, stderr := runCLI("shell", "-c", "exit"); code != 0 {
		t.Errorf("shell with LAB_GID_INDEX=x: exit %d, stderr %q; the variable is the lab's, not a default", code, stderr)
	}
	for _, cmd := range []string{"shell", "dash"} {
		code, _, stderr := runCLI(cmd, "--gid-index", "-1")
		if code != 2 || !strings.Contains(stderr, "--gid-index -1") {
			t.Errorf("%s --gid-index -1: exit %d, stderr %q; want a usage error (2)", cmd, code, stderr)
		}
	}
}

// TestShellExitStatus: a script's failed command says its line on
// stderr and ends verbscope shell with status 1; a missing -f file is
// an error (1) naming it.
func TestShellExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-c", "ls extra"}, "line 1: "},
		{[]string{"-f", "/nonexistent/script.vs"}, "verbscope shell: open /nonexistent/script.vs: "},
	} {
		code, _, stderr := runCLI(append([]string{"shell"}, tc.args...)...)
		if code != 1 || !strings.HasPrefix(stderr, tc.wantErr) {
			t.Errorf("shell %q: exit %d, stderr %q; want 1 and %q", tc.args, code, stderr, tc.wantErr)
		}
	}
}
