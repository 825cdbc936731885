package privfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Create creates path for a recording verbscope writes, often as
// root and holding comm names and keys: mode 0600, O_EXCL so an existing
// file (another user's, or one planted to be clobbered) is never
// overwritten, and O_NOFOLLOW so a symlink planted at path is never
// followed. force replaces an existing regular file (removed, then
// created afresh, so the new one is ours and private too); a symlink is
// refused even then, since the user meant the name, not its target.
func Create(path string, force bool) (*os.File, error) {
	if force {
		st, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		case st.Mode()&fs.ModeSymlink != 0:
			return nil, fmt.Errorf("%s is a symbolic link: not followed, not replaced (name a new file)", path)
		case !st.Mode().IsRegular():
			return nil, fmt.Errorf("%s is not a regular file: not replaced", path)
		default:
			if err := os.Remove(path); err != nil {
				return nil, err
			}
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	switch {
	case errors.Is(err, fs.ErrExist):
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a symbolic link: not followed (name a new file)", path)
		}
		return nil, fmt.Errorf("%s exists: not overwritten (pass --force to replace it, or name a new file)", path)
	case err != nil:
		return nil, err
	}
	// The umask may have taken bits off, never added any; chmod makes the
	// mode exactly 0600 whatever the umask.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return f, nil
}
