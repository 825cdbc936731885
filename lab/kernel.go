package lab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// GuestKernelPackage is the Debian kernel the lab boots, pinned to the
// build the recipe was measured with. If the archive has moved on, the
// package linux-image-amd64 currently depends on is used instead.
const (
	GuestKernelPackage = "linux-image-6.1.0-57-amd64"
	GuestKernelVersion = "6.1.192-3"
	guestKernelMeta    = "linux-image-amd64"
)

// Kernel is an unpacked guest kernel: the uncompressed vmlinux (it has a
// PVH entry point, so qemu boots it directly, 3 s faster under TCG than the
// XZ bzImage) and the modules the guest loads, in order.
type Kernel struct {
	Dir     string   // cache folder of this kernel
	Vmlinux string   // uncompressed ELF kernel
	Modules []string // .ko files in load order
	Package string   // the .deb it came from
}

// EnsureKernel returns the cached guest kernel, downloading and unpacking
// it first when the cache lacks it or the module list changed.
func (c *Cache) EnsureKernel(ctx context.Context) (*Kernel, error) {
	deb, err := c.kernelDeb(ctx)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSuffix(filepath.Base(deb), ".deb")
	dir := filepath.Join(c.Dir, "kernel", id)
	k := &Kernel{Dir: dir, Vmlinux: filepath.Join(dir, "vmlinux"), Package: deb}
	want := strings.Join(GuestModules, "\n") + "\n"
	if order, err := os.ReadFile(filepath.Join(dir, "wanted")); err == nil && string(order) == want {
		if k.Modules, err = readOrder(dir); err == nil {
			if _, err := os.Stat(k.Vmlinux); err == nil {
				return k, nil
			}
		}
	}
	c.progress("unpacking %s (vmlinux and %d modules with their dependencies)", filepath.Base(deb), len(GuestModules))
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
	tree, err := OpenModuleTree(filepath.Join(tmp, "lib", "modules"))
	if err != nil {
		return nil, err
	}
	names, err := LoadOrder(GuestModules, tree.Depends)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		src, _ := tree.Path(n)
		dst := filepath.Join(dir, "modules", n+".ko")
		if err := copyFile(dst, src, 0o644); err != nil {
			return nil, err
		}
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

// kernelDeb finds the guest kernel .deb in the cache or downloads it with
// apt-get download (unpacked only, never installed on the host).
func (c *Cache) kernelDeb(ctx context.Context) (string, error) {
	dir := filepath.Join(c.Dir, "deb")
	if debs, _ := filepath.Glob(filepath.Join(dir, "linux-image-*.deb")); len(debs) > 0 {
		return debs[len(debs)-1], nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	try := func(pkg string) error {
		c.progress("downloading the guest kernel %s with apt-get download (about 70 MB, once)", pkg)
		cmd := exec.CommandContext(ctx, "apt-get", "download", pkg)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("apt-get download %s: %v: %s", pkg, err, lastLines(string(out), 3))
		}
		return nil
	}
	err := try(GuestKernelPackage + "=" + GuestKernelVersion)
	if err != nil {
		c.progress("pinned kernel not available (%v); refreshing the package lists", err)
		if out, uerr := exec.CommandContext(ctx, "apt-get", "update", "-qq").CombinedOutput(); uerr != nil {
			return "", fmt.Errorf("lab: apt-get update: %v: %s", uerr, out)
		}
		if err = try(GuestKernelPackage + "=" + GuestKernelVersion); err != nil {
			pkg, derr := currentKernelPackage(ctx)
			if derr != nil {
				return "", fmt.Errorf("lab: cannot download a guest kernel: %v; and %w", err, derr)
			}
			c.progress("using %s, the kernel %s depends on now", pkg, guestKernelMeta)
			if err = try(pkg); err != nil {
				return "", fmt.Errorf("lab: cannot download the guest kernel: %w", err)
			}
		}
	}
	debs, _ := filepath.Glob(filepath.Join(dir, "linux-image-*.deb"))
	if len(debs) == 0 {
		return "", fmt.Errorf("lab: apt-get download left no .deb in %s", dir)
	}
	return debs[len(debs)-1], nil
}

// currentKernelPackage asks apt which linux-image-* the meta package
// linux-image-amd64 depends on.
func currentKernelPackage(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "apt-cache", "depends", guestKernelMeta).Output()
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

// xzMagic starts an XZ stream (the Debian bzImage payload is XZ).
var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}

// extractVmlinux finds the XZ stream inside a bzImage and decompresses it
// with xz(1). Like the kernel's scripts/extract-vmlinux, it tries each
// occurrence of the magic until one decompresses to an ELF file.
func extractVmlinux(ctx context.Context, bzImage, out string) error {
	data, err := os.ReadFile(bzImage)
	if err != nil {
		return err
	}
	for off := 0; ; {
		i := bytes.Index(data[off:], xzMagic)
		if i < 0 {
			return fmt.Errorf("lab: no XZ-compressed vmlinux found in %s", bzImage)
		}
		off += i
		var buf bytes.Buffer
		cmd := exec.CommandContext(ctx, "xz", "-dc", "--single-stream")
		cmd.Stdin = bytes.NewReader(data[off:])
		cmd.Stdout = &buf
		if err := cmd.Run(); err == nil && bytes.HasPrefix(buf.Bytes(), []byte("\x7fELF")) {
			return os.WriteFile(out, buf.Bytes(), 0o644)
		}
		off++
	}
}

// lastLines returns the last n lines of s, for error messages.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
