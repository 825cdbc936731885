package lab

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// kernel is an unpacked guest kernel: the uncompressed vmlinux (it has a
// PVH entry point, so qemu boots it directly, faster under TCG than the
// XZ bzImage: docs/performance.md) and the modules the guest loads, in
// order.
type kernel struct {
	Dir     string   // cache folder of this kernel
	Vmlinux string   // uncompressed ELF kernel
	Modules []string // .ko files in load order
	Package string   // the .deb it came from
	Name    string   // the guestKernel's name: "6.1", "6.12"
}

// ensureKernel returns the cached guest kernel, downloading and unpacking
// it first when the cache lacks it or the module list changed.
func (c *Cache) ensureKernel(ctx context.Context) (*kernel, error) {
	gk, err := c.guestKernel()
	if err != nil {
		return nil, err
	}
	deb, err := c.kernelDeb(ctx, gk)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSuffix(filepath.Base(deb), ".deb")
	dir := filepath.Join(c.Dir, "kernel", id)
	k := &kernel{Dir: dir, Vmlinux: filepath.Join(dir, "vmlinux"), Package: deb, Name: gk.Name}
	want := strings.Join(guestModules, "\n") + "\n"
	if order, err := os.ReadFile(filepath.Join(dir, "wanted")); err == nil && string(order) == want {
		if k.Modules, err = readOrder(dir); err == nil {
			if _, err := os.Stat(k.Vmlinux); err == nil {
				return k, nil
			}
		}
	}
	c.progress("unpacking %s (vmlinux and %d modules with their dependencies)", filepath.Base(deb), len(guestModules))
	tmp, err := os.MkdirTemp(c.Dir, "unpack-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", deb, tmp).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("lab: dpkg-deb -x %s: %v: %s", deb, err, out)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "modules"), 0o755); err != nil {
		return nil, err
	}
	// Debian 13 packages merged /usr: its modules are under usr/lib/modules.
	modDir := filepath.Join(tmp, "lib", "modules")
	if _, err := os.Stat(modDir); err != nil {
		modDir = filepath.Join(tmp, "usr", "lib", "modules")
	}
	tree, err := openModuleTree(modDir)
	if err != nil {
		return nil, err
	}
	all, err := loadOrder(guestModules, tree.Depends)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range all {
		if tree.Builtin(n) {
			continue // in vmlinux already (virtio_pci on Debian's 6.12)
		}
		// Written plain: busybox insmod cannot read .ko.xz or .ko.zst.
		data, err := tree.Read(n)
		if err != nil {
			return nil, err
		}
		dst := filepath.Join(dir, "modules", n+".ko")
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return nil, err
		}
		names = append(names, n)
		k.Modules = append(k.Modules, dst)
	}
	if err := os.WriteFile(filepath.Join(dir, "modules", "order"), []byte(strings.Join(names, "\n")+"\n"), 0o644); err != nil {
		return nil, err
	}
	bz, err := filepath.Glob(filepath.Join(tmp, "boot", "vmlinuz-*"))
	if err != nil || len(bz) != 1 {
		return nil, fmt.Errorf("lab: %s has no single boot/vmlinuz-* (found %v)", deb, bz)
	}
	if err := extractVmlinux(ctx, bz[0], k.Vmlinux); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "wanted"), []byte(want), 0o644); err != nil {
		return nil, err
	}
	return k, nil
}

func readOrder(dir string) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "modules", "order"))
	if err != nil {
		return nil, err
	}
	var mods []string
	for _, n := range strings.Fields(string(data)) {
		mods = append(mods, filepath.Join(dir, "modules", n+".ko"))
	}
	return mods, nil
}

// kernelDeb finds the guest kernel's .deb in the cache or downloads it
// with apt-get download (unpacked only, never installed on the host).
func (c *Cache) kernelDeb(ctx context.Context, k guestKernel) (string, error) {
	dir := filepath.Join(c.Dir, "deb")
	if debs, _ := filepath.Glob(filepath.Join(dir, k.debGlob())); len(debs) > 0 {
		return debs[len(debs)-1], nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	a, err := c.aptFor(ctx, k)
	if err != nil {
		return "", err
	}
	from := "the host's apt sources"
	if k.Suite != "" {
		from = "Debian " + k.Suite + " (a private apt configuration in the cache)"
	}
	update := func() error {
		out, err := a.command(ctx, "apt-get", "update", "-qq").CombinedOutput()
		if err != nil {
			return fmt.Errorf("lab: apt-get update for %s: %v: %s", from, err, lastLines(string(out), 3))
		}
		return nil
	}
	// A private configuration starts with no package lists.
	if k.Suite != "" {
		if lists, _ := filepath.Glob(filepath.Join(c.Dir, "apt", k.Suite, "lists", "*_Packages*")); len(lists) == 0 {
			c.progress("fetching Debian %s's package list (about 10 MB, once)", k.Suite)
			if err := update(); err != nil {
				return "", err
			}
		}
	}
	try := func(pkg string) error {
		c.progress("downloading the guest kernel %s from %s with apt-get download (70 to 110 MB, once)", pkg, from)
		cmd := a.command(ctx, "apt-get", "download", pkg)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get download %s: %v: %s", pkg, err, lastLines(string(out), 3))
		}
		return nil
	}
	err = try(k.Package + "=" + k.Version)
	if err != nil {
		c.progress("pinned kernel not available (%v); refreshing the package lists", err)
		if uerr := update(); uerr != nil {
			return "", uerr
		}
		if err = try(k.Package + "=" + k.Version); err != nil {
			pkg, derr := currentKernelPackage(ctx, a)
			if derr != nil {
				return "", fmt.Errorf("lab: cannot download a guest kernel: %v; and %w", err, derr)
			}
			if !k.ofSeries(pkg) {
				return "", fmt.Errorf("lab: cannot download the guest kernel %s (%v), and %s of %s depends on %s, not a %s kernel: update lab/kernels.go", k.Package, err, guestKernelMeta, from, pkg, k.Name)
			}
			c.progress("using %s, the kernel %s depends on now", pkg, guestKernelMeta)
			if err = try(pkg); err != nil {
				return "", fmt.Errorf("lab: cannot download the guest kernel: %w", err)
			}
		}
	}
	debs, _ := filepath.Glob(filepath.Join(dir, k.debGlob()))
	if len(debs) == 0 {
		return "", fmt.Errorf("lab: apt-get download left no %s in %s", k.debGlob(), dir)
	}
	return debs[len(debs)-1], nil
}

// currentKernelPackage asks apt which linux-image-* the meta package
// linux-image-amd64 depends on.
func currentKernelPackage(ctx context.Context, a apt) (string, error) {
	out, err := a.command(ctx, "apt-cache", "depends", guestKernelMeta).Output()
	if err != nil {
		return "", fmt.Errorf("apt-cache depends %s: %w", guestKernelMeta, err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if dep, ok := strings.CutPrefix(strings.TrimSpace(l), "Depends: "); ok && strings.HasPrefix(dep, "linux-image-") {
			return dep, nil
		}
	}
	return "", fmt.Errorf("apt-cache depends %s names no linux-image package", guestKernelMeta)
}

// vmlinuxCodecs are the compressions Debian's bzImages use for their
// payload: XZ up to Debian 12's 6.1, zstd from Debian 13's 6.12. The
// tools only ever see a stream from its magic to the bzImage's end, so
// each is told to stop after the first stream (xz) or forgiven the trailing
// bytes it complains of (zstd has no such switch) when what came out is a
// whole ELF file.
var vmlinuxCodecs = []struct {
	magic []byte
	cmd   []string
}{
	{[]byte{0xfd, '7', 'z', 'X', 'Z', 0x00}, []string{"xz", "-dc", "--single-stream"}},
	{[]byte{0x28, 0xb5, 0x2f, 0xfd}, []string{"zstd", "-dcq"}},
}

// extractVmlinux finds the compressed kernel inside a bzImage and
// decompresses it. Like the kernel's scripts/extract-vmlinux, it tries each
// occurrence of a magic until one decompresses to an ELF file.
func extractVmlinux(ctx context.Context, bzImage, out string) error {
	data, err := os.ReadFile(bzImage)
	if err != nil {
		return err
	}
	for _, c := range vmlinuxCodecs {
		for off := 0; ; off++ {
			i := bytes.Index(data[off:], c.magic)
			if i < 0 {
				break
			}
			off += i
			if _, err := exec.LookPath(c.cmd[0]); err != nil {
				return fmt.Errorf("lab: %s may hold a %s-compressed vmlinux, and this host has no %s: `make deps` installs it", bzImage, c.cmd[0], c.cmd[0])
			}
			var buf bytes.Buffer
			cmd := exec.CommandContext(ctx, c.cmd[0], c.cmd[1:]...)
			cmd.Stdin = bytes.NewReader(data[off:])
			cmd.Stdout = &buf
			cmd.Run() // judged by its output: zstd fails on the trailing bytes
			if wholeELF(buf.Bytes()) {
				return os.WriteFile(out, buf.Bytes(), 0o644)
			}
		}
	}
	return fmt.Errorf("lab: no XZ- or zstd-compressed vmlinux found in %s", bzImage)
}

// wholeELF reports whether b is an ELF file with every segment inside it,
// so a stream cut short is not taken for the kernel.
func wholeELF(b []byte) bool {
	f, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		return false
	}
	defer f.Close()
	if len(f.Progs) == 0 {
		return false
	}
	for _, p := range f.Progs {
		if p.Off+p.Filesz > uint64(len(b)) {
			return false
		}
	}
	return true
}

// lastLines returns the last n lines of s, for error messages.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
