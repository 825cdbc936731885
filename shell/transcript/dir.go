package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// envDir names the session directory, over the defaults.
const envDir = "VERBSCOPE_SESSIONS"

// systemDir is root's session directory: one place that every shell
// and recorder run as root agrees on.
const systemDir = "/run/verbscope/sessions"

// Dir is the session directory: $VERBSCOPE_SESSIONS, else
// /run/verbscope/sessions when this process may write there (root),
// else $XDG_RUNTIME_DIR/verbscope/sessions; "" when none applies. It
// is not created here (openWriter does).
func Dir() string {
	if d := os.Getenv(envDir); d != "" {
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

// makeDir creates dir 0700 and checks what is there (CheckDir).
func makeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return CheckDir(dir)
}

// CheckDir says whether dir may hold this user's transcripts: a
// directory (not a link planted to send them elsewhere) of this user
// (the effective uid) that no one else can write. A recorder run as
// root reads every line in it into its recordings: in a folder another
// user can write (one they made first, or a shared one such as /tmp),
// they could put words in a shell's mouth.
func CheckDir(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("transcript: %s is a symbolic link: not followed", dir)
	case !st.IsDir():
		return fmt.Errorf("transcript: %s is not a directory", dir)
	}
	if uid := int(st.Sys().(*syscall.Stat_t).Uid); uid != os.Geteuid() {
		return fmt.Errorf("transcript: %s belongs to uid %d, not to this user (uid %d): another user's folder is neither read nor written", dir, uid, os.Geteuid())
	}
	if perm := st.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("transcript: %s is mode %04o: other users can write in it (chmod 700 %s)", dir, perm, dir)
	}
	return nil
}
