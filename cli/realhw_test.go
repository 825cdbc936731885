//go:build realhw

package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/counters"
)

// TestRealHW checks the sysfs views against the trees other projects
// recorded from real hardware (../shared/realhw/trees, or $REALHW_TREES;
// their README says where each comes from). It runs outside make test:
// make realhw. The trees are copied to a temporary folder, where a class
// entry stored as a file holding its symlink's target (the
// rdma_exporter-symlink tree) becomes the symlink it was, and a missing
// proc/ an empty one.
func TestRealHW(t *testing.T) {
	root := os.Getenv("REALHW_TREES")
	if root == "" {
		root = "../../shared/realhw/trees"
	}
	trees, err := os.ReadDir(root)
	if err != nil {
		t.Fatalf("no recorded trees: %v (set REALHW_TREES to ../shared/realhw/trees)", err)
	}
	if len(trees) == 0 {
		t.Fatalf("%s holds no trees", root)
	}
	checks := 0
	for _, tr := range trees {
		t.Run(tr.Name(), func(t *testing.T) {
			dir := copyTree(t, filepath.Join(root, tr.Name()))
			checks += realDevices(t, dir) + realPorts(t, dir) + realCounters(t, dir)
		})
	}
	t.Logf("%d checks over %d trees", checks, len(trees))
}

// copyTree copies a recorded tree, making stored symlinks real.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := strings.TrimSpace(string(b))
		if filepath.Base(filepath.Dir(p)) == "infiniband" && strings.Contains(filepath.Dir(p), filepath.Join("class", "infiniband")) && strings.HasPrefix(text, "../") {
			return os.Symlink(text, out) // a class entry stored as its link's target
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dst, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

func runJSON(t *testing.T, dir string, v any, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(append(append([]string{args[0]}, fixtureArgs(dir)...), append(args[1:], "-j")...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("%v: not JSON: %v\n%s", args, err, stdout)
	}
	return stderr
}

// realDevices: every device has a driver from its name, its device link
// or its class symlink, and a PCI function where the tree says one.
func realDevices(t *testing.T, dir string) int {
	var devs []struct {
		Dev, Driver, PCI string
		Soft             bool
	}
	runJSON(t, dir, &devs, "devices")
	for _, d := range devs {
		t.Logf("device %s: driver %q pci %q soft %v", d.Dev, d.Driver, d.PCI, d.Soft)
		// A device under its driver's default name (these trees' are) has
		// that driver; rdmap0s0 is a renamed one (udev's naming).
		if want := counters.DeviceDriver("", d.Dev, false, ""); d.Driver != want {
			t.Errorf("%s: driver %q, want %q", d.Dev, d.Driver, want)
		}
		if real, err := filepath.EvalSymlinks(filepath.Join(dir, "sys/class/infiniband", d.Dev)); err == nil && strings.Contains(real, "/pci") && d.PCI == "" {
			t.Errorf("%s: its class entry lies below a PCI function (%s) but no PCI was read", d.Dev, real)
		}
	}
	return len(devs)
}

// realPorts: a missing lid or sm_lid file is null, a present one its value.
func realPorts(t *testing.T, dir string) int {
	var ports []struct {
		Dev   string
		Port  int
		LID   *uint16 `json:"lid"`
		SMLID *uint16 `json:"sm_lid"`
	}
	runJSON(t, dir, &ports, "ports")
	for _, p := range ports {
		pdir := filepath.Join(dir, "sys/class/infiniband", p.Dev, "ports", strconv.Itoa(p.Port))
		for _, f := range []struct {
			file string
			v    *uint16
		}{{"lid", p.LID}, {"sm_lid", p.SMLID}} {
			_, err := os.Stat(filepath.Join(pdir, f.file))
			if (err == nil) != (f.v != nil) {
				t.Errorf("%s/%d %s: file there %v, JSON value %v", p.Dev, p.Port, f.file, err == nil, f.v)
			}
		}
	}
	return 2 * len(ports)
}

// realCounters: every counter file is listed with the file's value, or
// null and unavailable for a non-number; a known counter has its
// registry facts and the ! of its class; at most one note per folder.
func realCounters(t *testing.T, dir string) int {
	var cs []struct {
		Dev, Group, Name, Driver, Meaning, Class, Side string
		Port                                           int
		Value                                          *uint64
		Unavailable, Error, Known                      bool
		Terminal                                       *bool
	}
	stderr := runJSON(t, dir, &cs, "counters")
	notes := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if i := strings.Index(l, "/sys/"); i >= 0 {
			notes[strings.SplitN(l[i:], ":", 2)[0]]++
		}
	}
	for folder, n := range notes {
		if n > 1 {
			t.Errorf("%s: %d notes, want at most one", folder, n)
		}
	}
	unknown, na := 0, 0
	for _, c := range cs {
		path := filepath.Join(dir, "sys/class/infiniband", c.Dev, "ports", strconv.Itoa(c.Port), c.Group, c.Name)
		if c.Port == 0 {
			path = filepath.Join(dir, "sys/class/infiniband", c.Dev, c.Group, c.Name)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: listed but unreadable: %v", path, err)
			continue
		}
		text := strings.TrimSpace(string(b))
		if c.Unavailable {
			na++
			if c.Value != nil {
				t.Errorf("%s: unavailable with a value", path)
			}
		} else if c.Value == nil || itoaU(*c.Value) != text {
			t.Errorf("%s: file %q, listed %v", path, text, c.Value)
		}
		in, ok := counters.Lookup(c.Driver, c.Name)
		if ok != c.Known || (ok && (c.Meaning != in.Meaning || c.Class != string(in.Class) || c.Terminal == nil)) {
			t.Errorf("%s: registry facts %+v, want known %v %+v", path, c, ok, in)
		}
		if !ok {
			unknown++
			t.Logf("unknown counter: driver %q %s", c.Driver, c.Name)
		}
		if c.Error != (ok && in.Alarming()) {
			t.Errorf("%s: error mark %v, registry class %s terminal %v", path, c.Error, in.Class, in.Terminal)
		}
	}
	t.Logf("%d counters: %d unavailable, %d unknown to the registry; notes %v", len(cs), na, unknown, notes)
	return len(cs)
}

func itoaU(v uint64) string {
	b, _ := json.Marshal(v)
	return string(b)
}
