package lab

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

//go:embed init.sh
var initScript []byte

// entry is one file, folder or symlink of the guest image.
type entry struct {
	Path   string      // in the image, without a leading slash
	Mode   fs.FileMode // type bits and permissions
	Source string      // host file whose contents to copy, for regular files
	Data   []byte      // inline contents, for regular files without Source
	Link   string      // symlink target
}

// guestTools are the host programs copied into the guest: rdma-core's tools
// (the oracles the tests compare against), perftest, iproute2, tmux and htop.
var guestTools = []string{
	"ibv_devices", "ibv_devinfo", "ibv_rc_pingpong", "ibv_uc_pingpong", "ibv_ud_pingpong",
	"ibv_srq_pingpong", "ibv_xsrq_pingpong",
	"ib_send_lat", "ib_send_bw", "ib_write_lat", "ib_write_bw", "ib_read_lat", "ib_read_bw",
	"ib_atomic_lat", "ib_atomic_bw",
	"rping", "ucmatose",
	"rdma", "ip",
	"tmux",
	"htop", // the idle dashboard's benchmark compares it with htop
}

// guestDlopened are libraries loaded with dlopen, which ldd cannot see:
// the rxe provider (libibverbs loads it by name from its provider folder)
// and libgcc_s (glibc loads it for pthread_exit and cancellation).
var guestDlopened = []string{
	"/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so",
	"/usr/lib/x86_64-linux-gnu/libgcc_s.so.1",
}

// guestTerminfo are the terminal descriptions tmux needs in the guest.
var guestTerminfo = []string{"l/linux", "v/vt100", "x/xterm", "x/xterm-256color", "s/screen", "s/screen-256color", "t/tmux", "t/tmux-256color"}

// guestTrees are folders copied whole: the C.UTF-8 locale (tmux refuses
// to start without a UTF-8 locale, and glibc loads it from here).
var guestTrees = []string{"/usr/lib/locale/C.utf8"}

// imageInputs are the host facts an image is planned from.
type imageInputs struct {
	Busybox string            // host path of busybox-static
	Applets []string          // busybox applet names, linked in /bin
	Files   []string          // host files to copy at their own path (binaries, libraries, terminfo)
	Links   map[string]string // host symlink path -> its resolved host path
	Modules []string          // host .ko files, in load order
	Init    []byte            // the guest's /init
}

// plan lists every entry of the guest image, sorted so that each folder
// comes before its contents.
func plan(in imageInputs) []entry {
	seen := map[string]bool{}
	var out []entry
	add := func(e entry) {
		if seen[e.Path] {
			return
		}
		seen[e.Path] = true
		out = append(out, e)
	}
	dir := func(p string) {
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			add(entry{Path: d, Mode: fs.ModeDir | 0o755})
		}
	}
	file := func(e entry) {
		dir(e.Path)
		add(e)
	}
	for _, d := range []string{"proc", "sys", "dev", "tmp", "run", "root", "mnt/host", "mnt/lab", "usr/lib", "usr/lib64", "usr/bin", "usr/sbin", "bin", "sbin", "etc"} {
		file(entry{Path: d, Mode: fs.ModeDir | 0o755})
	}
	file(entry{Path: "lib", Mode: fs.ModeSymlink, Link: "usr/lib"})
	file(entry{Path: "lib64", Mode: fs.ModeSymlink, Link: "usr/lib64"})
	file(entry{Path: "init", Mode: 0o755, Data: in.Init})
	file(entry{Path: "bin/busybox", Mode: 0o755, Source: in.Busybox})
	for _, a := range in.Applets {
		if a != "busybox" {
			file(entry{Path: "bin/" + a, Mode: fs.ModeSymlink, Link: "busybox"})
		}
	}
	for _, f := range in.Files {
		file(entry{Path: imagePath(f), Mode: 0o755, Source: f})
	}
	for from, to := range in.Links {
		file(entry{Path: imagePath(from), Mode: fs.ModeSymlink, Link: "/" + imagePath(to)})
	}
	var order bytes.Buffer
	for _, m := range in.Modules {
		name := moduleName(m)
		file(entry{Path: "modules/" + name + ".ko", Mode: 0o644, Source: m})
		fmt.Fprintln(&order, name)
	}
	file(entry{Path: "modules/order", Mode: 0o644, Data: order.Bytes()})
	// libibverbs finds providers only through this folder (the path is
	// compiled in; there is no environment override).
	file(entry{Path: "etc/libibverbs.d/rxe.driver", Mode: 0o644, Data: []byte("driver rxe\n")})
	file(entry{Path: "etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/bin/sh\n")})
	file(entry{Path: "etc/group", Mode: 0o644, Data: []byte("root:x:0:\n")})
	file(entry{Path: "etc/hosts", Mode: 0o644, Data: []byte("127.0.0.1 localhost\n10.0.0.1 lab\n10.0.1.1 lab-a\n10.0.1.2 lab-b\n")})
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// imageKey is a hash of everything an image is built from: the plan and the
// size and modification time of every host file in it. A changed package
// or init script gives a new key and so a rebuild.
func imageKey(entries []entry) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, "verbscope-initramfs-v1")
	for _, e := range entries {
		fmt.Fprintf(h, "%s %o %s %x", e.Path, uint32(e.Mode), e.Link, sha256.Sum256(e.Data))
		if e.Source != "" {
			st, err := os.Stat(e.Source)
			if err != nil {
				return "", fmt.Errorf("lab: image input: %w", err)
			}
			fmt.Fprintf(h, " %s %d %d", e.Source, st.Size(), st.ModTime().UnixNano())
		}
		fmt.Fprintln(h)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// writeImage writes the entries as an uncompressed newc cpio archive.
func writeImage(file string, entries []entry) error {
	tmp := file + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	cw := newCPIOWriter(bw)
	for _, e := range entries {
		data := e.Data
		if e.Source != "" {
			if data, err = os.ReadFile(e.Source); err != nil {
				f.Close()
				return fmt.Errorf("lab: image: %w", err)
			}
		}
		if err := cw.Add(e.Path, e.Mode, data, e.Link); err != nil {
			f.Close()
			return err
		}
	}
	if err := cw.Close(); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// hostInputs gathers the image inputs from this host: busybox and its
// applets, the guest tools with every library they load, and the modules.
func hostInputs(modules []string) (imageInputs, error) {
	in := imageInputs{Links: map[string]string{}, Modules: modules, Init: initScript}
	bb, err := exec.LookPath("busybox")
	if err != nil {
		return in, fmt.Errorf("lab: busybox not found (Debian package busybox-static): %w", err)
	}
	in.Busybox = bb
	out, err := exec.Command(bb, "--list").Output()
	if err != nil {
		return in, fmt.Errorf("lab: busybox --list: %w", err)
	}
	in.Applets = strings.Fields(string(out))

	files := map[string]bool{}
	// addFile records a host file and, when it is reached through symlinks
	// (/usr/sbin/ip -> /usr/bin/ip, libfoo.so.1 -> libfoo.so.1.2.3), the link.
	addFile := func(p string) error {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fmt.Errorf("lab: image input %s: %w", p, err)
		}
		files[real] = true
		if imagePath(real) != imagePath(p) {
			in.Links[p] = real
		}
		return nil
	}
	var elfs []string
	for _, t := range guestTools {
		p, err := exec.LookPath(t)
		if err != nil {
			return in, fmt.Errorf("lab: guest tool %s not found on this host (run `make deps`): %w", t, err)
		}
		elfs = append(elfs, p)
	}
	elfs = append(elfs, guestDlopened...)
	for _, p := range elfs {
		if err := addFile(p); err != nil {
			return in, err
		}
		libs, err := sharedLibs(p)
		if err != nil {
			return in, err
		}
		for _, l := range libs {
			if err := addFile(l); err != nil {
				return in, err
			}
		}
	}
	for _, t := range guestTerminfo {
		for _, d := range []string{"/lib/terminfo/", "/usr/share/terminfo/"} {
			if _, err := os.Stat(d + t); err == nil {
				if err := addFile(d + t); err != nil {
					return in, err
				}
			}
		}
	}
	for _, root := range guestTrees {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			return addFile(p)
		})
		if err != nil {
			return in, fmt.Errorf("lab: image input %s: %w", root, err)
		}
	}
	for f := range files {
		in.Files = append(in.Files, f)
	}
	sort.Strings(in.Files)
	return in, nil
}
