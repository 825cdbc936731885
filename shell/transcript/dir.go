package transcript

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// EnvDir names the session directory, over the defaults.
const EnvDir = "VERBSCOPE_SESSIONS"

// systemDir is root's session directory: one place that every shell
// and recorder run as root agrees on.
const systemDir = "/run/verbscope/sessions"

// Dir is the session directory: $VERBSCOPE_SESSIONS, else
// /run/verbscope/sessions when this process may write there (root),
// else $XDG_RUNTIME_DIR/verbscope/sessions; "" when none applies. It
// is not created here (Open does).
func Dir() string {
	if d := os.Getenv(EnvDir); d != "" {
		return d
	}
	if writable(systemDir) {
		return systemDir
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		return filepath.Join(x, "verbscope", "sessions")
	}
	return ""
}

// writable says whether dir exists and can be written, or could be
// made: its nearest existing parent can be written.
func writable(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		_, err := os.Stat(d)
		if err == nil {
			return unix.Access(d, unix.W_OK) == nil
		}
		if !errors.Is(err, fs.ErrNotExist) || d == filepath.Dir(d) {
			return false
		}
	}
}

// makeDir creates dir 0700 and checks that what is there is a
// directory, not a link planted to send the transcripts elsewhere.
func makeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return errors.New(dir + " is not a directory")
	}
	return nil
}
