package dash

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The rewind file holds what the dashboard saw (MR keys, PSNs, traced
// modifies' attributes, the shell's sessions), often as root. It lives
// in a folder of its own, made 0700 with a random name, so no one else
// can read it or put a -wal or -shm beside it before SQLite does; the
// folder is under the first of these that is private to this user:
//
//   - /run/verbscope for root (a tmpfs emptied at boot);
//   - $XDG_RUNTIME_DIR, the user's own (a tmpfs that logind removes at
//     the session's end);
//   - the temporary folder ($TMPDIR, else /tmp), when it is sticky.
//
// A dashboard killed by SIGKILL cannot remove its folder; the next one
// started by the same user removes it (sweepRewinds), and the places
// above are emptied at boot or logout besides. A folder is known to be
// alive by its flock, held while its dashboard runs: no pid is trusted,
// since pids are reused.
const (
	rewindPrefix = "verbscope-rewind-"
	rewindNew    = ".verbscope-rewind-new-" // made, not yet locked: never swept
	rewindFile   = "rewind.vsrec"
)

// rewindRootDir is root's place for rewind folders (a test's own
// folder in tests).
var rewindRootDir = "/run/verbscope"

// rewindDir is a rewind file's folder, locked while it is in use.
type rewindDir struct {
	path string
	lock *os.File
}

// file is the rewind file's path.
func (d *rewindDir) file() string { return filepath.Join(d.path, rewindFile) }

// remove removes the folder and what is in it, then lets go of it.
func (d *rewindDir) remove() {
	os.RemoveAll(d.path)
	d.lock.Close()
}

// rewindBases are the places a rewind folder may go, best first; each
// is private to this user, or sticky (no one removes or renames
// another's folder in it).
func rewindBases() []string {
	euid := os.Geteuid()
	var out []string
	if euid == 0 {
		// /run/verbscope is root's alone (the transcripts' sessions
		// folder is in it too); made here if it is not there yet.
		if err := os.Mkdir(rewindRootDir, 0o700); err == nil || errors.Is(err, fs.ErrExist) {
			if privateDir(rewindRootDir, euid) {
				out = append(out, rewindRootDir)
			}
		}
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(x) && privateDir(x, euid) {
		out = append(out, x)
	}
	if t := os.TempDir(); stickyDir(t) || privateDir(t, euid) {
		out = append(out, t)
	}
	return out
}

// privateDir says whether dir is a directory (not a link) owned by uid
// that no one else can write.
func privateDir(dir string, uid int) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == uid && st.Mode().Perm()&0o022 == 0
}

// stickyDir says whether dir is a directory (not a link) with the
// sticky bit: anyone may make files in it, only their owners remove or
// rename them.
func stickyDir(dir string) bool {
	st, err := os.Lstat(dir)
	return err == nil && st.IsDir() && st.Mode()&fs.ModeSticky != 0
}

// makeRewindDir sweeps the rewind folders of dashboards that are gone,
// then makes this one's, locked. The folder is made under a name the
// sweep passes over and renamed once locked, so a sweep by another
// dashboard starting at the same moment never takes it for a dead one.
func makeRewindDir() (*rewindDir, error) {
	bases := rewindBases()
	if len(bases) == 0 {
		return nil, fmt.Errorf("no private place for the rewind file: /run/verbscope (root), $XDG_RUNTIME_DIR or a sticky %s", os.TempDir())
	}
	for _, b := range bases {
		sweepRewinds(b)
	}
	base := bases[0]
	tmp, err := os.MkdirTemp(base, rewindNew)
	if err != nil {
		return nil, fmt.Errorf("make the rewind folder in %s: %w", base, err)
	}
	lock, err := lockDir(tmp, false)
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("lock the rewind folder %s: %w", tmp, err)
	}
	final := filepath.Join(base, rewindPrefix+strconv.Itoa(os.Getpid())+"-"+strings.TrimPrefix(filepath.Base(tmp), rewindNew))
	if err := os.Rename(tmp, final); err != nil {
		lock.Close()
		os.Remove(tmp)
		return nil, fmt.Errorf("name the rewind folder %s: %w", final, err)
	}
	return &rewindDir{path: final, lock: lock}, nil
}

// lockDir opens dir (never through a link) and takes its flock:
// exclusive, failing at once when nonblock and another holds it.
func lockDir(dir string, nonblock bool) (*os.File, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	how := unix.LOCK_EX
	if nonblock {
		how |= unix.LOCK_NB
	}
	if err := unix.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// sweepRewinds removes, in base, the rewind folders of this user that
// no dashboard holds (it was killed), and the rewind files an older
// verbscope left there by pid (verbscope-rewind-PID.vsrec and its
// -wal, -shm) whose process is gone. Another user's are left alone.
func sweepRewinds(base string) {
	es, err := os.ReadDir(base)
	if err != nil {
		return
	}
	euid := os.Geteuid()
	for _, e := range es {
		name := e.Name()
		if !strings.HasPrefix(name, rewindPrefix) {
			continue
		}
		p := filepath.Join(base, name)
		if e.IsDir() {
			f, err := lockDir(p, true)
			if err != nil {
				continue // alive (or not ours to open)
			}
			if st, err := f.Stat(); err == nil && int(st.Sys().(*syscall.Stat_t).Uid) == euid {
				os.RemoveAll(p)
			}
			f.Close()
			continue
		}
		sweepOldRewind(p, euid)
	}
}

// sweepOldRewind removes an older verbscope's rewind file p
// (verbscope-rewind-PID.vsrec, or one of its -wal, -shm, -journal) if
// it is this user's regular file and its process is gone.
func sweepOldRewind(p string, euid int) {
	name := filepath.Base(p)
	i := strings.Index(name, ".vsrec")
	if i < 0 {
		return
	}
	pid, err := strconv.Atoi(strings.TrimPrefix(name[:i], rewindPrefix))
	if err != nil || pid <= 0 || !errors.Is(unix.Kill(pid, 0), unix.ESRCH) {
		return
	}
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() || int(st.Sys().(*syscall.Stat_t).Uid) != euid {
		return
	}
	os.Remove(p)
}
