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
