package rec

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
)

// A recording and the files SQLite adds beside it are 0600 whatever
// the umask; a symlink or an existing file at the path is refused.
func TestCreatePrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "r.vsrec")
	ctx := context.Background()
	w, err := Create(ctx, path, Host{}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Frame(ctx, frames()[0]); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %o, want 600", filepath.Base(p), st.Mode().Perm())
		}
	}
	w.Close()
	if _, err := Create(ctx, path, Host{}, WriterOptions{}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("Create over an existing recording: %v, want refused", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(ctx, link, Host{}, WriterOptions{Force: true}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Create through a symlink: %v, want refused", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "target")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the symlink's target was created")
	}
}

// TestCreatePlantedSidecars: another user who makes the -wal and -shm
// (0666, theirs) in the moment before SQLite opens them cannot: they
// are made already, private, so the log of the recording is never in a
// file they can read or write.
func TestCreatePlantedSidecars(t *testing.T) {
	defer func(f func(string)) { beforeWAL = f }(beforeWAL)
	planted := map[string]bool{}
	made := map[string]os.FileInfo{}
	beforeWAL = func(path string) {
		for _, sfx := range []string{"-wal", "-shm"} {
			made[sfx], _ = os.Stat(path + sfx)
			f, err := os.OpenFile(path+sfx, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
			if err == nil {
				f.Chmod(0o666)
				f.Close()
				planted[sfx] = true
			}
		}
	}
	w, path := createT(t, "r.vsrec", Host{}, WriterOptions{})
	defer w.Close()
	if err := w.Frame(context.Background(), frames()[0]); err != nil {
		t.Fatal(err)
	}
	for _, sfx := range []string{"-wal", "-shm"} {
		st, err := os.Stat(path + sfx)
		if err != nil {
			t.Fatal(err)
		}
		if planted[sfx] || st.Mode().Perm() != 0o600 || !os.SameFile(st, made[sfx]) {
			t.Errorf("%s: planted %v, mode %o, the one made before WAL %v; want never planted, 600, the one made", sfx, planted[sfx], st.Mode().Perm(), os.SameFile(st, made[sfx]))
		}
	}
}

// What is not a recording, or is a damaged one, is an error naming the
// file, never a panic; a newer schema says to upgrade.
func TestOpenRefuses(t *testing.T) {
	good := record(t, WriterOptions{})
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	newer := record(t, WriterOptions{})
	if err := setVersion(newer, schemaVersion+1); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name, path string
		want       error
		says       string
	}{
		{"short text", write("short", []byte("hello, not a database\n")), ErrNotRecording, "damaged"},
		{"text", write("text", []byte(strings.Repeat("hello, not a database\n", 500))), ErrNotRecording, "damaged"},
		{"empty", write("empty", nil), ErrNotRecording, "not made by verbscope"},
		{"header only", write("header", data[:100]), ErrNotRecording, ""},
		{"newer", newer, ErrNewerSchema, fmt.Sprintf("version %d, this verbscope reads up to %d", schemaVersion+1, schemaVersion)},
		{"missing", filepath.Join(dir, "nope"), os.ErrNotExist, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Open(ctx, tc.path)
			if err == nil {
				// Damage deeper in: the first read reports it.
				_, err = r.Info(ctx)
				r.Close()
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Open: %v; want %v saying %q", err, tc.want, tc.says)
			}
		})
	}
	// Truncated at any page: an error from Open or a read, never a panic.
	for n := 4096; n < len(data); n += 4096 {
		p := write("trunc", data[:n])
		if r, err := Open(ctx, p); err == nil {
			readAll(ctx, r)
			r.Close()
		}
	}
}

// setVersion makes a recording one of another schema version: the
// tables a later version added are dropped, and the version stamped.
func setVersion(path string, v int) error {
	db, err := openRW(path)
	if err != nil {
		return err
	}
	defer db.Close()
	for table, since := range addedIn {
		if since > v {
			if _, err := db.Exec("DROP TABLE IF EXISTS " + table); err != nil {
				return err
			}
		}
	}
	_, err = db.Exec(fmt.Sprintf("PRAGMA user_version = %d", v))
	return err
}

// openRW opens a recording to change it, as a test (or its author)
// would: Open reads only.
func openRW(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(path, url.Values{"mode": {"rw"}}))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// readAll reads everything a Reader offers and returns the first
// error (the fuzz target's and the truncation test's walk).
func readAll(ctx context.Context, r *Reader) error {
	if _, err := r.Info(ctx); err != nil {
		return err
	}
	if _, err := r.shell(ctx, time.Now()); err != nil {
		return err
	}
	rs, err := r.Readings(ctx, "res")
	if err != nil {
		return err
	}
	for _, rd := range rs {
		if _, err := r.snapshot(ctx, rd.Seq); err != nil {
			return err
		}
	}
	return nil
}

// The oldest readings go by age and by size, whole keyframe spans, and
// what is left still rebuilds.
func TestPrune(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		o       WriterOptions
		maxLeft int // res readings left at most
	}{
		{"retain", WriterOptions{KeyEvery: 2, Retain: 1500 * time.Millisecond}, 3},
		{"size", WriterOptions{KeyEvery: 2, MaxSize: 1}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := openT(t, record(t, tc.o))
			rs, err := r.Readings(ctx, "res")
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) == 0 || len(rs) > tc.maxLeft {
				t.Fatalf("%d readings left, want 1..%d", len(rs), tc.maxLeft)
			}
			if !rs[0].Keyframe {
				t.Errorf("the first reading left is not a keyframe")
			}
			last, err := r.snapshot(ctx, rs[len(rs)-1].Seq)
			if err != nil {
				t.Fatal(err)
			}
			if len(last.QPs) != 2 || len(last.MRs) != 4 {
				t.Errorf("last reading rebuilt %d QPs %d MRs, want 2 and 4", len(last.QPs), len(last.MRs))
			}
			var orphans int
			if err := r.db.QueryRow("SELECT COUNT(*) FROM objects WHERE seq NOT IN (SELECT seq FROM readings)").Scan(&orphans); err != nil || orphans != 0 {
				t.Errorf("%d object rows of pruned readings (%v)", orphans, err)
			}
		})
	}
}

// A recorder killed with SIGKILL mid-run leaves a file that opens with
// every reading it said it had committed.
func TestSIGKILLKeepsCommitted(t *testing.T) {
	if os.Getenv("REC_KILL_CHILD") != "" {
		killChild()
		return
	}
	path := filepath.Join(t.TempDir(), "killed.vsrec")
	cmd := exec.Command(os.Args[0], "-test.run=^TestSIGKILLKeepsCommitted$")
	cmd.Env = append(os.Environ(), "REC_KILL_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	committed := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "committed ")); err == nil {
			committed = n
			if n >= 25 {
				break
			}
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if committed < 25 {
		t.Fatalf("the child committed %d readings before dying on its own", committed)
	}
	r := openT(t, path)
	rs, err := r.Readings(context.Background(), "res")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) < committed {
		t.Errorf("%d readings after SIGKILL, the child had committed %d", len(rs), committed)
	}
	if _, err := r.snapshot(context.Background(), rs[len(rs)-1].Seq); err != nil {
		t.Errorf("the last reading does not rebuild: %v", err)
	}
}

// killChild records readings until killed, saying after each commit
// how many it has committed.
func killChild() {
	ctx := context.Background()
	w, err := Create(ctx, os.Getenv("REC_KILL_CHILD"), Host{Hostname: "doomed"}, WriterOptions{KeyEvery: 7})
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fs := frames()
	for i := 0; ; i++ {
		f := fs[i%len(fs)]
		f.Seq = uint64(i + 1)
		s := *f.Snapshot
		s.Time = t0.Add(time.Duration(i) * time.Second)
		f.Snapshot = &s
		if err := w.Frame(ctx, f); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Printf("committed %d\n", i+1)
	}
}

// TestMaxSizeCountsWAL: --max-size holds for the file and its -wal
// together, as they take the disk (or a tmpfs's memory): after each
// keyframe's pruning, both together are within the bound but for a
// reading's worth.
func TestMaxSizeCountsWAL(t *testing.T) {
	const maxSize = 256 << 10
	ctx := context.Background()
	w, path := createT(t, "bounded.vsrec", Host{}, WriterOptions{KeyEvery: 1, MaxSize: maxSize})
	defer w.Close()
	var reading int64
	for i := range 24 {
		s := &inspect.Snapshot{Time: t0.Add(time.Duration(i) * time.Second)}
		for n := range 150 {
			s.MRs = append(s.MRs, mr(uint32(i*1000+n), 200, "churn"))
		}
		before := onDiskT(t, path)
		if err := w.Frame(ctx, inspect.Frame{Seq: uint64(i + 1), Snapshot: s}); err != nil {
			t.Fatal(err)
		}
		after := onDiskT(t, path)
		reading = max(reading, after-before)
		if after > maxSize+reading {
			t.Fatalf("reading %d: the file and its -wal take %d bytes, over --max-size %d and a reading (%d)", i, after, maxSize, reading)
		}
	}
}

// onDiskT is what path and its -wal take.
func onDiskT(t *testing.T, path string) int64 {
	t.Helper()
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}
