package lab

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// guestModules are the modules the guest loads, besides their dependencies.
// The order here is only a preference: loadOrder puts dependencies first.
var guestModules = []string{
	// rdma_rxe allocates the "crc32" crypto transform for its ICRC when a
	// link is added. Nothing in the initramfs can autoload it, and it is not
	// a declared dependency, so it must be named.
	"crc32_generic",
	"rdma_rxe", "ib_uverbs", "ib_umad", "rdma_ucm",
	"veth",
	"virtio_pci", "virtio_net",
	"9pnet_virtio", "9p",
}

// moduleName normalizes a module file or name the way kmod does:
// "crc32-pclmul.ko" and "crc32_pclmul" are the same module.
func moduleName(s string) string {
	s = filepath.Base(s)
	for _, ext := range []string{".ko", ".ko.xz", ".ko.zst", ".ko.gz"} {
		if strings.HasSuffix(s, ext) {
			s = strings.TrimSuffix(s, ext)
			break
		}
	}
	return strings.ReplaceAll(s, "-", "_")
}

// parseModinfo reads the NUL-separated key=value strings of a module's
// .modinfo section and returns the modules named by its "depends=" entry.
func parseModinfo(section []byte) []string {
	var deps []string
	for _, kv := range bytes.Split(section, []byte{0}) {
		v, ok := bytes.CutPrefix(kv, []byte("depends="))
		if !ok {
			continue
		}
		for _, d := range strings.Split(string(v), ",") {
			if d = strings.TrimSpace(d); d != "" {
				deps = append(deps, moduleName(d))
			}
		}
	}
	return deps
}

// loadOrder returns wanted and everything they depend on, each once,
// dependencies before their users, in the order wanted names them otherwise.
// depsOf reports a module's direct dependencies; cycles are an error because
// insmod could never satisfy them.
func loadOrder(wanted []string, depsOf func(name string) ([]string, error)) ([]string, error) {
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var order []string
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		switch state[name] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("lab: module dependency cycle: %s -> %s", strings.Join(path, " -> "), name)
		}
		state[name] = visiting
		deps, err := depsOf(name)
		if err != nil {
			return err
		}
		for _, d := range deps {
			if err := visit(d, append(path, name)); err != nil {
				return err
			}
		}
		state[name] = done
		order = append(order, name)
		return nil
	}
	for _, w := range wanted {
		if err := visit(moduleName(w), nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// moduleTree indexes the modules of an unpacked kernel package
// (lib/modules/VERSION/kernel/..., usr/lib/modules on Debian 13) by module
// name, and the ones its modules.builtin says are built into the kernel.
type moduleTree struct {
	paths   map[string]string
	builtin map[string]bool
	plain   map[string][]byte // decompressed modules, read once
}

// openModuleTree walks dir for kernel modules and modules.builtin.
func openModuleTree(dir string) (*moduleTree, error) {
	t := &moduleTree{paths: map[string]string{}, builtin: map[string]bool{}, plain: map[string][]byte{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
		case d.Name() == "modules.builtin":
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range parseBuiltin(data) {
				t.builtin[m] = true
			}
		case strings.Contains(d.Name(), ".ko"):
			t.paths[moduleName(d.Name())] = p
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lab: index kernel modules in %s: %w", dir, err)
	}
	if len(t.paths) == 0 {
		return nil, fmt.Errorf("lab: no kernel modules under %s", dir)
	}
	return t, nil
}

// parseBuiltin reads modules.builtin (one "kernel/.../name.ko" a line,
// written by the kernel's build) and returns the module names.
func parseBuiltin(data []byte) []string {
	var names []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); strings.HasSuffix(l, ".ko") {
			if n := moduleName(l); n != "" {
				names = append(names, n)
			}
		}
	}
	return names
}

// Path returns the file of a module.
func (t *moduleTree) Path(name string) (string, bool) {
	p, ok := t.paths[moduleName(name)]
	return p, ok
}

// Builtin reports whether a module is built into the kernel and so needs
// no loading: a module list the same for every kernel may name one that a
// newer kernel builds in (virtio_pci, =y in Debian's 6.12 config).
func (t *moduleTree) Builtin(name string) bool {
	_, file := t.paths[moduleName(name)]
	return !file && t.builtin[moduleName(name)]
}

// Read returns a module's ELF file, decompressed: Debian's 6.1 ships plain
// .ko files, its 6.12 .ko.xz (CONFIG_MODULE_COMPRESS_XZ), and busybox
// insmod reads only plain ones.
func (t *moduleTree) Read(name string) ([]byte, error) {
	name = moduleName(name)
	if b, ok := t.plain[name]; ok {
		return b, nil
	}
	p, ok := t.paths[name]
	if !ok {
		return nil, fmt.Errorf("lab: kernel module %q is not in the guest kernel package (built in, or renamed?)", name)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("lab: read module %s: %w", p, err)
	}
	if data, err = decompressModule(p, data); err != nil {
		return nil, err
	}
	t.plain[name] = data
	return data, nil
}

// decompressModule undoes the compression a module file's name says:
// gzip with Go's own reader, XZ and zstd with xz(1) and zstd(1) from the
// host (Go's standard library reads neither).
func decompressModule(p string, data []byte) ([]byte, error) {
	var tool string
	switch {
	case strings.HasSuffix(p, ".ko"):
		return data, nil
	case strings.HasSuffix(p, ".ko.gz"):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("lab: decompress module %s: %w", p, err)
		}
		out, err := io.ReadAll(zr)
		if err != nil {
			return nil, fmt.Errorf("lab: decompress module %s: %w", p, err)
		}
		return out, nil
	case strings.HasSuffix(p, ".ko.xz"):
		tool = "xz"
	case strings.HasSuffix(p, ".ko.zst"):
		tool = "zstd"
	default:
		return nil, fmt.Errorf("lab: module %s: unknown compression", p)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(tool, "-dcq")
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("lab: decompress module %s with %s (Debian package %s): %v: %s", p, tool, map[string]string{"xz": "xz-utils", "zstd": "zstd"}[tool], err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// Depends reads a module's declared dependencies from its ELF .modinfo;
// a built-in module has none to load.
func (t *moduleTree) Depends(name string) ([]string, error) {
	if t.Builtin(name) {
		return nil, nil
	}
	data, err := t.Read(name)
	if err != nil {
		return nil, err
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("lab: read module %s: %w", name, err)
	}
	defer f.Close()
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, nil
	}
	info, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("lab: read .modinfo of %s: %w", name, err)
	}
	return parseModinfo(info), nil
}
