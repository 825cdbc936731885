package dash

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/ui"
)

// rewindTestBase sends rewind folders to a test's own folder and
// returns it: the temporary folder, and root's /run/verbscope in it.
func rewindTestBase(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	t.Setenv("TMPDIR", base)
	t.Setenv("XDG_RUNTIME_DIR", "")
	old := rewindRootDir
	rewindRootDir = base
	t.Cleanup(func() { rewindRootDir = old })
	return base
}

// TestRewindFilePrivate: the rewind file is in a folder of its own,
// 0700 and this user's, named at random, not at a name anyone can
// guess in the shared temporary folder; a -wal planted at the name an
// older verbscope used is not touched; close removes the folder.
func TestRewindFilePrivate(t *testing.T) {
	base := rewindTestBase(t)
	planted := filepath.Join(base, fmt.Sprintf("verbscope-rewind-%d.vsrec-wal", os.Getpid()))
	if err := os.WriteFile(planted, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	res := make(chan inspect.Frame)
	src, stop, err := startRewind(context.Background(), ui.Sources{Res: res, Sys: make(chan sysfsmon.Update)}, rec.Host{Hostname: "lab"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	rw := src.Replay.(*rewinder)
	s := &inspect.Snapshot{Time: time.Now()}
	res <- inspect.Frame{Seq: 1, Snapshot: s, Update: inspect.NewTracker(inspect.TrackerConfig{}).Update(s)}
	<-src.Res
	dir := filepath.Dir(rw.path)
	st, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if dir == base || !st.IsDir() || st.Mode().Perm() != 0o700 || int(st.Sys().(*syscall.Stat_t).Uid) != os.Geteuid() {
		t.Errorf("rewind file %s: its folder is %s mode %v; want a folder of its own, 0700, ours", rw.path, dir, st.Mode())
	}
	if name := filepath.Base(dir); !strings.HasPrefix(name, rewindPrefix) || len(name) < len(rewindPrefix)+len(fmt.Sprint(os.Getpid()))+6 {
		t.Errorf("rewind folder %s: want a random part in its name", name)
	}
	if st, err := os.Stat(planted); err != nil || st.Size() != 0 {
		t.Errorf("the planted %s was touched: %v %v", planted, st, err)
	}
	stop()
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("close left %s: %v", dir, err)
	}
}

// TestSweepRewinds: starting, a dashboard removes this user's rewind
// folders that no dashboard holds and the files an older verbscope
// left by pid for a process that is gone; it keeps a folder a
// dashboard holds, another user's, and an older file of a live pid.
func TestSweepRewinds(t *testing.T) {
	base := rewindTestBase(t)
	mk := func(name string) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, rewindFile), make([]byte, 4096), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := mk(rewindPrefix + "1-dead")
	held := mk(rewindPrefix + "2-held")
	lock, err := lockDir(held, true)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	oldDead := filepath.Join(base, fmt.Sprintf("%s%d.vsrec", rewindPrefix, gone.Process.Pid))
	oldLive := filepath.Join(base, fmt.Sprintf("%s%d.vsrec", rewindPrefix, os.Getpid()))
	for _, p := range []string{oldDead, oldDead + "-wal", oldLive} {
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	keep := []string{held, oldLive}
	if os.Geteuid() == 0 {
		// Another user's dead folder: not ours to remove.
		other := mk(rewindPrefix + "3-other")
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		keep = append(keep, other)
	}
	d, err := makeRewindDir()
	if err != nil {
		t.Fatal(err)
	}
	defer d.remove()
	for _, p := range []string{dead, oldDead, oldDead + "-wal"} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s was not swept: %v", filepath.Base(p), err)
		}
	}
	for _, p := range keep {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was swept: %v", filepath.Base(p), err)
		}
	}
}

// TestSweepAfterSIGKILL: a dashboard killed with SIGKILL leaves its
// rewind folder; the next one started removes it (the lock died with
// the process).
func TestSweepAfterSIGKILL(t *testing.T) {
	if b := os.Getenv("REWIND_KILL_CHILD"); b != "" {
		rewindRootDir = b
		d, err := makeRewindDir()
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		if err := os.WriteFile(d.file(), make([]byte, 1<<20), 0o600); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("dir " + d.path)
		select {}
	}
	base := rewindTestBase(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSweepAfterSIGKILL$")
	cmd.Env = append(os.Environ(), "REWIND_KILL_CHILD="+base, "TMPDIR="+base, "XDG_RUNTIME_DIR=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var dir string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "dir "); ok {
			dir = d
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if dir == "" {
		t.Fatal("the child made no rewind folder")
	}
	if _, err := os.Stat(filepath.Join(dir, rewindFile)); err != nil {
		t.Fatalf("the killed child's rewind file: %v", err)
	}
	d, err := makeRewindDir()
	if err != nil {
		t.Fatal(err)
	}
	defer d.remove()
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the killed dashboard's %s was not swept: %v", dir, err)
	}
}

// TestRewindBases: a place for rewind folders is one of this user's
// that no one else can write, or a sticky one; $XDG_RUNTIME_DIR or
// $TMPDIR open to others' writes, or another user's, is passed over.
func TestRewindBases(t *testing.T) {
	base := rewindTestBase(t)
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	private, open, sticky := mk("private", 0o700), mk("open", 0o777), mk("sticky", 0o777|os.ModeSticky)
	for _, tc := range []struct {
		xdg, tmp string
		want     []string
	}{
		{private, sticky, []string{private, sticky}},
		{open, open, nil},
		{"relative/dir", private, []string{private}},
	} {
		t.Setenv("XDG_RUNTIME_DIR", tc.xdg)
		t.Setenv("TMPDIR", tc.tmp)
		got := rewindBases()
		if os.Geteuid() == 0 {
			// root's own place comes first (the test's base here).
			if len(got) == 0 || got[0] != base {
				t.Errorf("XDG %s TMPDIR %s: %v, want %s first", tc.xdg, tc.tmp, got, base)
				continue
			}
			got = got[1:]
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("XDG %s TMPDIR %s: bases %v, want %v", tc.xdg, tc.tmp, got, tc.want)
		}
	}
}
