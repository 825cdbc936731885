package lab

import (
	"bytes"
	"debug/elf"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// GuestModules are the modules the guest loads, besides their dependencies.
// The order here is only a preference: LoadOrder puts dependencies first.
var GuestModules = []string{
	// rdma_rxe allocates the "crc32" crypto transform for its ICRC when a
	// link is added. Nothing in the initramfs can autoload it, and it is not
	// a declared dependency, so it must be named.
	"crc32_generic",
	"rdma_rxe", "ib_uverbs", "ib_umad", "rdma_ucm",
	"veth",
	"virtio_pci", "virtio_net",
	"9pnet_virtio", "9p",
}

// ModuleName normalizes a module file or name the way kmod does:
// "crc32-pclmul.ko" and "crc32_pclmul" are the same module.
func ModuleName(s string) string {
	s = filepath.Base(s)
	for _, ext := range []string{".ko", ".ko.xz", ".ko.zst", ".ko.gz"} {
		if strings.HasSuffix(s, ext) {
			s = strings.TrimSuffix(s, ext)
			break
		}
	}
	return strings.ReplaceAll(s, "-", "_")
}

// ParseModinfo reads the NUL-separated key=value strings of a module's
// .modinfo section and returns the modules named by its "depends=" entry.
func ParseModinfo(section []byte) []string {
	var deps []string
	for _, kv := range bytes.Split(section, []byte{0}) {
		v, ok := bytes.CutPrefix(kv, []byte("depends="))
		if !ok {
			continue
		}
		for _, d := range strings.Split(string(v), ",") {
			if d = strings.TrimSpace(d); d != "" {
				deps = append(deps, ModuleName(d))
			}
		}
	}
	return deps
}

// LoadOrder returns wanted and everything they depend on, each once,
// dependencies before their users, in the order wanted names them otherwise.
// depsOf reports a module's direct dependencies; cycles are an error because
// insmod could never satisfy them.
func LoadOrder(wanted []string, depsOf func(name string) ([]string, error)) ([]string, error) {
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
		if err := visit(ModuleName(w), nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// ModuleTree indexes the .ko files of an unpacked kernel package
// (lib/modules/VERSION/kernel/...) by module name.
type ModuleTree struct {
	paths map[string]string
}

// OpenModuleTree walks dir for kernel modules.
func OpenModuleTree(dir string) (*ModuleTree, error) {
	t := &ModuleTree{paths: map[string]string{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.Contains(d.Name(), ".ko") {
			t.paths[ModuleName(d.Name())] = p
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

// Path returns the file of a module.
func (t *ModuleTree) Path(name string) (string, bool) {
	p, ok := t.paths[ModuleName(name)]
	return p, ok
}

// Depends reads a module's declared dependencies from its ELF .modinfo.
func (t *ModuleTree) Depends(name string) ([]string, error) {
	p, ok := t.Path(name)
	if !ok {
		return nil, fmt.Errorf("lab: kernel module %q is not in the guest kernel package (built in, or renamed?)", name)
	}
	if !strings.HasSuffix(p, ".ko") {
		return nil, fmt.Errorf("lab: module %s is compressed; busybox insmod needs plain .ko files", p)
	}
	f, err := elf.Open(p)
	if err != nil {
		return nil, fmt.Errorf("lab: read module %s: %w", p, err)
	}
	defer f.Close()
	sec := f.Section(".modinfo")
	if sec == nil {
		return nil, nil
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf("lab: read .modinfo of %s: %w", p, err)
	}
	return ParseModinfo(data), nil
}
