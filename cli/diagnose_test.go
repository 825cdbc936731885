package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Mistakes in diagnose's command line are usage errors (status 2) that
// say what is valid, before any reading; a peer flag's file is read
// first too.
func TestDiagnoseUsage(t *testing.T) {
	auth := filepath.Join(t.TempDir(), "auth")
	os.WriteFile(auth, []byte("no colon here\n"), 0o600)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"diagnose", "rxe0"}, 2, "want DEV/QPN"},
		{[]string{"diagnose", "rxe0/1", "rxe0/2"}, 2, "at most one QP"},
		{[]string{"diagnose", "--readings", "1"}, 2, "at least 2"},
		{[]string{"diagnose", "--interval", "10ms"}, 2, "at least 100ms"},
		{[]string{"diagnose", "--peers", "ftp://hostb"}, 2, "want an exporter's URL"},
		{[]string{"diagnose", "--peer-auth", auth}, 1, "want one line user:password"},
		{[]string{"diagnose", "--peer-ca", "/nonexistent/ca.pem"}, 1, "--peer-ca"},
		{[]string{"export", "--peers", "ftp://hostb"}, 2, "want an exporter's URL"},
		{[]string{"record", "--peers", "ftp://hostb"}, 2, "want an exporter's URL"},
		{[]string{"dash", "--peers", "ftp://hostb"}, 2, "want an exporter's URL"},
	} {
		code, _, stderr := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: status %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
