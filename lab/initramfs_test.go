package lab

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func testInputs() imageInputs {
	return imageInputs{
		Busybox: "/usr/bin/busybox",
		Applets: []string{"busybox", "sh", "insmod", "ip"},
		Files: []string{
			"/usr/bin/ibv_devinfo", "/usr/bin/ip",
			"/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0",
			"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
			"/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so",
			"/usr/lib/x86_64-linux-gnu/libgcc_s.so.1",
		},
		Links: map[string]string{
			"/lib/x86_64-linux-gnu/libibverbs.so.1": "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0",
			"/lib64/ld-linux-x86-64.so.2":           "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
			"/usr/sbin/ip":                          "/usr/bin/ip",
		},
		Modules: []string{"/k/modules/ib_core.ko", "/k/modules/rdma_rxe.ko"},
		Init:    []byte("#!/bin/sh\n"),
	}
}

// TestPlanContents checks the guest image's contents list: everything /init
// and libibverbs need, at the paths they look for it.
func TestPlanContents(t *testing.T) {
	entries := plan(testInputs())
	byPath := map[string]entry{}
	for _, e := range entries {
		if _, dup := byPath[e.Path]; dup {
			t.Errorf("%s listed twice", e.Path)
		}
		byPath[e.Path] = e
	}
	want := map[string]entry{
		"init":                           {Path: "init", Mode: 0o755, Data: []byte("#!/bin/sh\n")},
		"bin/busybox":                    {Path: "bin/busybox", Mode: 0o755, Source: "/usr/bin/busybox"},
		"bin/sh":                         {Path: "bin/sh", Mode: fs.ModeSymlink, Link: "busybox"},
		"bin/ip":                         {Path: "bin/ip", Mode: fs.ModeSymlink, Link: "busybox"},
		"lib":                            {Path: "lib", Mode: fs.ModeSymlink, Link: "usr/lib"},
		"lib64":                          {Path: "lib64", Mode: fs.ModeSymlink, Link: "usr/lib64"},
		"usr/bin/ip":                     {Path: "usr/bin/ip", Mode: 0o755, Source: "/usr/bin/ip"},
		"usr/sbin/ip":                    {Path: "usr/sbin/ip", Mode: fs.ModeSymlink, Link: "/usr/bin/ip"},
		"usr/lib64/ld-linux-x86-64.so.2": {Path: "usr/lib64/ld-linux-x86-64.so.2", Mode: fs.ModeSymlink, Link: "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
		"usr/lib/x86_64-linux-gnu/libibverbs.so.1":              {Path: "usr/lib/x86_64-linux-gnu/libibverbs.so.1", Mode: fs.ModeSymlink, Link: "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"},
		"usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so": {Path: "usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so", Mode: 0o755, Source: "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so"},
		"etc/libibverbs.d/rxe.driver":                           {Path: "etc/libibverbs.d/rxe.driver", Mode: 0o644, Data: []byte("driver rxe\n")},
		"modules/ib_core.ko":                                    {Path: "modules/ib_core.ko", Mode: 0o644, Source: "/k/modules/ib_core.ko"},
		"modules/order":                                         {Path: "modules/order", Mode: 0o644, Data: []byte("ib_core\nrdma_rxe\n")},
		"mnt/lab":                                               {Path: "mnt/lab", Mode: fs.ModeDir | 0o755},
		"mnt/host":                                              {Path: "mnt/host", Mode: fs.ModeDir | 0o755},
		"proc":                                                  {Path: "proc", Mode: fs.ModeDir | 0o755},
	}
	for p, w := range want {
		if diff := cmp.Diff(w, byPath[p]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", p, diff)
		}
	}
	if _, ok := byPath["bin/busybox/busybox"]; ok {
		t.Error("busybox linked to itself")
	}
	// Every entry's folder comes before it, as the kernel unpacks in order.
	seen := map[string]bool{}
	for _, e := range entries {
		if d := filepath.Dir(e.Path); d != "." && !seen[d] {
			t.Errorf("%s comes before its folder %s", e.Path, d)
		}
		seen[e.Path] = true
	}
}

func TestImageKeyChangesWithInputs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "tool")
	os.WriteFile(src, []byte("v1"), 0o755)
	in := imageInputs{Busybox: src, Init: []byte("a")}
	k1, err := imageKey(plan(in))
	if err != nil {
		t.Fatal(err)
	}
	k1again, _ := imageKey(plan(in))
	in.Init = []byte("b")
	k2, _ := imageKey(plan(in))
	os.WriteFile(src, []byte("v22"), 0o755)
	in.Init = []byte("a")
	k3, _ := imageKey(plan(in))
	if k1 != k1again {
		t.Error("same inputs, different keys")
	}
	if k1 == k2 || k1 == k3 || k2 == k3 {
		t.Errorf("keys did not change with inputs: %s %s %s", k1, k2, k3)
	}
	os.Remove(src)
	if _, err := imageKey(plan(in)); err == nil {
		t.Error("missing source file: no error")
	}
}

// readCPIO is a minimal newc reader, enough to check what writeImage wrote.
func readCPIO(t *testing.T, b []byte) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	align := func(n int) int { return (n + 3) &^ 3 }
	for off := 0; ; {
		if !bytes.HasPrefix(b[off:], []byte("070701")) {
			t.Fatalf("bad magic at %d", off)
		}
		field := func(i int) int {
			v, err := strconv.ParseUint(string(b[off+6+8*i:off+14+8*i]), 16, 32)
			if err != nil {
				t.Fatal(err)
			}
			return int(v)
		}
		mode, size, namesize := field(1), field(6), field(11)
		name := string(b[off+110 : off+110+namesize-1])
		off = align(off + 110 + namesize)
		data := b[off : off+size]
		off = align(off + size)
		if name == "TRAILER!!!" {
			return out
		}
		e := entry{Path: name}
		switch uint32(mode) & syscall.S_IFMT {
		case syscall.S_IFDIR:
			e.Mode = fs.ModeDir | fs.FileMode(mode&0o777)
		case syscall.S_IFLNK:
			e.Mode, e.Link = fs.ModeSymlink, string(data)
		default:
			e.Mode, e.Data = fs.FileMode(mode&0o777), append([]byte(nil), data...)
		}
		out[name] = e
	}
}

func TestWriteImageRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte("odd length!"), 0o644)
	entries := []entry{
		{Path: "etc", Mode: fs.ModeDir | 0o755},
		{Path: "etc/a", Mode: 0o644, Data: []byte("x")},
		{Path: "etc/b", Mode: 0o755, Source: src},
		{Path: "lib", Mode: fs.ModeSymlink, Link: "usr/lib"},
		{Path: "empty", Mode: 0o600},
	}
	img := filepath.Join(dir, "img.cpio")
	if err := writeImage(img, entries); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	got := readCPIO(t, b)
	want := map[string]entry{
		"etc":   {Path: "etc", Mode: fs.ModeDir | 0o755},
		"etc/a": {Path: "etc/a", Mode: 0o644, Data: []byte("x")},
		"etc/b": {Path: "etc/b", Mode: 0o755, Data: []byte("odd length!")},
		"lib":   {Path: "lib", Mode: fs.ModeSymlink, Link: "usr/lib"},
		"empty": {Path: "empty", Mode: 0o600},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(b)%4 != 0 {
		t.Errorf("archive length %d not 4-aligned", len(b))
	}
	if _, err := os.Stat(img + ".tmp"); err == nil {
		t.Error("temporary file left behind")
	}
}

func TestInitScriptMarkers(t *testing.T) {
	// The host finds these on the console; the script must print them.
	s := string(initScript)
	for _, m := range []string{"<<<VERBSCOPE-READY>>>", "<<<VERBSCOPE-EXIT $rc>>>", "<<<VERBSCOPE-FAIL", "<<<VERBSCOPE-PROBE>>>", "/modules/order", "rdma link add rxe0"} {
		if !strings.Contains(s, m) {
			t.Errorf("init.sh lacks %q", m)
		}
	}
}
