package sysfsmon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/sysfs"
)

// FS reads RDMA state from a sysfs tree, a procfs tree and a host root
// (for /dev/infiniband, the dpkg database and the library folders), the
// way prometheus/procfs's sysfs.NewFS roots its reads at a mount point.
// The zero value is not usable; make one with NewFS or NewDefaultFS.
type FS struct {
	sys, proc, root string
	sysReal         string // sys with symlinks resolved, to map link targets back
	procfs          procfs.FS
	sysfs           sysfs.FS
	now             func() time.Time
	// readFile reads one file; tests swap it to play the kernel's
	// refusals (EINVAL from an empty gid_attrs entry) on fixture trees.
	readFile func(name string) ([]byte, error)
	// addrs fingerprints the host's interface addresses for gidWatch;
	// tests swap it to play an address change.
	addrs func() (string, error)
}

// Option changes how NewFS sets up an FS.
type Option func(*FS)

// WithHostRoot roots the reads outside /sys and /proc (/dev/infiniband,
// /var/lib/dpkg/status, /usr/lib/...) at dir instead of "/".
func WithHostRoot(dir string) Option { return func(f *FS) { f.root = dir } }

// WithClock sets the clock that stamps snapshots, so tests get stable
// rates; the default is time.Now.
func WithClock(now func() time.Time) Option { return func(f *FS) { f.now = now } }

// NewFS returns an FS that reads sysfs under sysRoot (normally "/sys") and
// procfs under procRoot (normally "/proc"). Both must be folders.
func NewFS(sysRoot, procRoot string, opts ...Option) (*FS, error) {
	f := &FS{sys: sysRoot, proc: procRoot, root: "/", now: time.Now, readFile: readAttr, addrs: hostAddrs}
	for _, o := range opts {
		o(f)
	}
	for _, d := range []string{sysRoot, procRoot} {
		st, err := os.Stat(d)
		if err != nil {
			return nil, fmt.Errorf("sysfsmon: new: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("sysfsmon: new: %s is not a folder", d)
		}
	}
	var err error
	if f.sysReal, err = filepath.EvalSymlinks(sysRoot); err != nil {
		return nil, fmt.Errorf("sysfsmon: new: %w", err)
	}
	if f.procfs, err = procfs.NewFS(procRoot); err != nil {
		return nil, fmt.Errorf("sysfsmon: new: procfs %s: %w", procRoot, err)
	}
	if f.sysfs, err = sysfs.NewFS(sysRoot); err != nil {
		return nil, fmt.Errorf("sysfsmon: new: sysfs %s: %w", sysRoot, err)
	}
	return f, nil
}

// NewDefaultFS returns an FS on the live system: /sys, /proc and /.
func NewDefaultFS() (*FS, error) { return NewFS("/sys", "/proc") }

// IsLive reports whether f reads the running kernel's own /sys, so
// callers know whether asking libibverbs about the same devices makes
// sense.
func (f *FS) IsLive() bool { return filepath.Clean(f.sys) == "/sys" }

// sysPath joins a path under the sysfs root.
func (f *FS) sysPath(elem ...string) string {
	return filepath.Join(append([]string{f.sys}, elem...)...)
}

// procPath joins a path under the procfs root.
func (f *FS) procPath(elem ...string) string {
	return filepath.Join(append([]string{f.proc}, elem...)...)
}

// rootPath joins a path under the host root.
func (f *FS) rootPath(elem ...string) string {
	return filepath.Join(append([]string{f.root}, elem...)...)
}

// logical maps a path under one of the roots back to where it lives on a
// live system (/sys/..., /proc/..., /...), so warnings read the same on
// fixture trees and golden files stay stable.
func (f *FS) logical(p string) string {
	for _, r := range []struct{ root, as string }{{f.sysReal, "/sys"}, {f.sys, "/sys"}, {f.proc, "/proc"}} {
		if rel, err := filepath.Rel(r.root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(filepath.Join(r.as, rel))
		}
	}
	if f.root != "/" {
		if rel, err := filepath.Rel(f.root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(filepath.Join("/", rel))
		}
	}
	return p
}

// Warning is one file that could not be read or parsed. The result it is
// attached to stands without it: a vendor's odd file never hides the rest.
type Warning struct {
	Path string // where it lives on a live system, e.g. /sys/class/infiniband/rxe0/ports/1/rate
	Err  error  // the read or parse error (errors.Is(w.Err, syscall.EINVAL) works)
}

// String is "path: error", the way the CLI prints warnings.
func (w Warning) String() string { return w.Path + ": " + w.Err.Error() }

// MarshalJSON writes {"path": ..., "error": ...}.
func (w Warning) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	}{w.Path, w.Err.Error()})
}

// UnmarshalJSON reads what MarshalJSON writes; Err becomes a plain error
// with the message.
func (w *Warning) UnmarshalJSON(b []byte) error {
	var v struct {
		Path  string `json:"path"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*w = Warning{Path: v.Path, Err: errors.New(v.Error)}
	return nil
}

// warnings collects the per-file problems of one read.
type warnings []Warning

func (ws *warnings) add(f *FS, path string, err error) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is said once, as Path
	}
	*ws = append(*ws, Warning{Path: f.logical(path), Err: err})
}

// readsLive tells whether reads go to the kernel's own /sys, where a
// poll keeps counter files open; fixture trees and swapped readers are
// read file by file.
func (f *FS) readsLive() bool { return f.IsLive() }

// read returns a sysfs or procfs attribute file with its trailing newline
// removed. Files that do not exist return an error that wraps
// fs.ErrNotExist; callers treat those as "this driver has no such file".
func (f *FS) read(path string) (string, error) {
	b, err := f.readFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\n"), nil
}

// optional reads an attribute that some drivers lack: a missing file gives
// "" silently, any other failure a warning.
func (f *FS) optional(ws *warnings, path string) string {
	s, err := f.read(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ws.add(f, path, err)
		}
		return ""
	}
	return strings.TrimSpace(s)
}

// optionalUint reads an optional number with parse (decimal or 0x hex).
func (f *FS) optionalUint(ws *warnings, path string, bits int) uint64 {
	v, _ := f.optionalUintOK(ws, path, bits)
	return v
}

// optionalUintOK is optionalUint that also tells whether there was a
// number: false for a missing, empty or unparsable file.
func (f *FS) optionalUintOK(ws *warnings, path string, bits int) (uint64, bool) {
	s := f.optional(ws, path)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 0, bits)
	if err != nil {
		ws.add(f, path, fmt.Errorf("not a %d-bit number: %q", bits, s))
		return 0, false
	}
	return v, true
}

// listDir returns the names in a folder, sorted; a missing folder is an
// empty list and no error.
func (f *FS) listDir(path string) ([]string, error) {
	ents, err := os.ReadDir(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, nil
}

// numericNames keeps the names that are decimal numbers, sorted by value
// (ports/1, gids/0..1023, /proc/irq/N).
func numericNames(names []string) []int {
	var ns []int
	for _, n := range names {
		if v, err := strconv.Atoi(n); err == nil && v >= 0 {
			ns = append(ns, v)
		}
	}
	slices.Sort(ns)
	return ns
}
