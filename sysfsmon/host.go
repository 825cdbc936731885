package sysfsmon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Host is what a troubleshooting checklist asks of the machine before any
// device: which RDMA modules are loaded, which kernel and rdma-core run,
// who may open /dev/infiniband, and how much memory a process may pin.
type Host struct {
	// KernelRelease is /proc/sys/kernel/osrelease (uname -r).
	KernelRelease string `json:"kernel_release"`
	// KernelVersion is /proc/version.
	KernelVersion string `json:"kernel_version"`
	// CPUs is the number of CPUs in /proc/stat (read by procfs).
	CPUs int `json:"cpus"`
	// Modules are the loaded RDMA modules from /proc/modules: ib_core,
	// every module that uses it (ib_uverbs, rdma_cm, mlx5_ib, rdma_rxe...)
	// and the known RDMA NIC cores (mlx5_core...), sorted by name.
	Modules  []Module `json:"rdma_modules"`
	RDMACore RDMACore `json:"rdma_core"`
	// DevNodes are the entries of /dev/infiniband.
	DevNodes []DevNode `json:"dev_nodes"`
	// UverbsABI is /sys/class/infiniband_verbs/abi_version: the version
	// of the uverbs command interface the kernel speaks (6 on every
	// kernel since 2.6.13); 0 when ib_uverbs is not loaded. libibverbs
	// reads it first and refuses versions it does not know.
	UverbsABI int `json:"uverbs_abi_version"`
	// DriverABIs are the drivers' own ABI versions by uverbs device
	// (/sys/class/infiniband_verbs/uverbsN/abi_version; rxe has 2,
	// mlx5 1): what the device's userspace provider must speak.
	DriverABIs map[string]int `json:"driver_abi_versions"`
	// Memlock is RLIMIT_MEMLOCK of the process reading procfs
	// (/proc/self/limits; getrlimit(2)): ibv_reg_mr pins memory against it.
	MemlockSoft Limit `json:"memlock_soft"`
	MemlockHard Limit `json:"memlock_hard"`
	// Cred is who the process reading procfs is (/proc/self/status):
	// whether it may open the uverbs nodes and pin memory beyond the
	// limit. Nil when the file could not be read.
	Cred *Cred `json:"cred"`
	// VerbsConf is libibverbs' provider configuration.
	VerbsConf VerbsConf `json:"verbs_conf"`
	Warnings  []Warning `json:"warnings"`
}

// HasModule reports whether the module is loaded.
func (h Host) HasModule(name string) bool {
	return slices.ContainsFunc(h.Modules, func(m Module) bool { return m.Name == name })
}

// RDMACore is the installed rdma-core (libibverbs and its providers).
type RDMACore struct {
	Version string `json:"version"` // "44.0-2" from dpkg, "44.0" from a file name; "" when not found
	// Source says where Version comes from: "dpkg" (/var/lib/dpkg/status,
	// package rdma-core or libibverbs1) or "file name" (the
	// libibverbs.so.1.<abi>.<release> file).
	Source string `json:"source"`
	Detail string `json:"detail"` // the package or file it was read from
}

// DevNode is one entry of /dev/infiniband: uverbsN (verbs), umadN and
// issmN (MADs), rdma_cm.
type DevNode struct {
	Name     string `json:"name"`
	Mode     string `json:"mode"`     // ls -l style: "crw-rw-rw-"
	CharDev  bool   `json:"char_dev"` // a character device, as it must be
	UID      int    `json:"uid"`      // owner
	GID      int    `json:"gid"`      // group
	WorldRW  bool   `json:"world_rw"` // anyone may read and write it
	IBDev    string `json:"ibdev"`    // the RDMA device it serves, from /sys/class/infiniband_{verbs,mad}/<name>/ibdev
	MajorMin string `json:"dev"`      // "231:192", from the class folder's dev file
}

// rdmaCores are modules that serve RDMA without using ib_core themselves:
// the NIC core drivers their *_ib modules sit on.
var rdmaCores = []string{"mlx5_core", "mlx4_core", "mlx4_en", "bnxt_en", "ice", "i40e", "qede", "qed", "cxgb4", "hns3", "mana", "efa", "ionic"}

// rdmaCoreLibDirs are where distributions install libibverbs.
var rdmaCoreLibDirs = []string{"usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib64", "usr/lib", "lib/x86_64-linux-gnu", "lib64"}

// Host reads the host facts. Each one that cannot be read is a warning
// in the result; there is no failure of the whole call.
func (f *FS) Host() *Host {
	var ws warnings
	h := &Host{}
	h.KernelRelease = f.optional(&ws, f.procPath("sys/kernel/osrelease"))
	h.KernelVersion = f.optional(&ws, f.procPath("version"))
	if st, err := f.procfs.Stat(); err != nil {
		ws.add(f, f.procPath("stat"), err)
	} else {
		h.CPUs = len(st.CPU)
	}
	h.Modules = f.rdmaModules(&ws)
	h.RDMACore = f.rdmaCore(&ws)
	h.DevNodes = f.devNodes(&ws)
	h.UverbsABI, h.DriverABIs = f.uverbsABIs(&ws)
	if s, err := f.read(f.procPath("self/limits")); err != nil {
		ws.add(f, f.procPath("self/limits"), err)
	} else if h.MemlockSoft, h.MemlockHard, err = parseMemlock(s); err != nil {
		ws.add(f, f.procPath("self/limits"), err)
	}
	if s, err := f.read(f.procPath("self/status")); err != nil {
		ws.add(f, f.procPath("self/status"), err)
	} else if c, err := parseStatusCred(s); err != nil {
		ws.add(f, f.procPath("self/status"), err)
	} else {
		h.Cred = &c
	}
	h.VerbsConf = f.verbsConf(&ws)
	h.Warnings = ws
	return h
}

// rdmaModules picks the RDMA modules out of /proc/modules: ib_core and,
// transitively, every module listed as using it, plus rdmaCores.
func (f *FS) rdmaModules(ws *warnings) []Module {
	path := f.procPath("modules")
	s, err := f.read(path)
	if err != nil {
		ws.add(f, path, err)
		return nil
	}
	mods, err := parseModules(s)
	if err != nil {
		ws.add(f, path, err)
	}
	byName := map[string]Module{}
	for _, m := range mods {
		byName[m.Name] = m
	}
	keep := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		m, ok := byName[n]
		if !ok || keep[n] {
			return
		}
		keep[n] = true
		for _, u := range m.UsedBy {
			walk(u)
		}
	}
	walk("ib_core")
	for _, n := range rdmaCores {
		if _, ok := byName[n]; ok {
			keep[n] = true
		}
	}
	var out []Module
	for _, n := range sortedKeys(keep) {
		out = append(out, byName[n])
	}
	return out
}

// rdmaCore finds the rdma-core version: dpkg's database first, then the
// libibverbs file name.
func (f *FS) rdmaCore(ws *warnings) RDMACore {
	status := f.rootPath("var/lib/dpkg/status")
	if s, err := f.read(status); err == nil {
		for _, pkg := range []string{"rdma-core", "libibverbs1"} {
			if v := parseDpkgVersion(s, pkg); v != "" {
				return RDMACore{Version: v, Source: "dpkg", Detail: pkg}
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		ws.add(f, status, err)
	}
	for _, dir := range rdmaCoreLibDirs {
		names, _ := f.listDir(f.rootPath(dir))
		for _, n := range names {
			if v := parseLibibverbsName(n); v != "" {
				return RDMACore{Version: v, Source: "file name", Detail: "/" + filepath.ToSlash(filepath.Join(dir, n))}
			}
		}
	}
	return RDMACore{}
}

// devNodes lists /dev/infiniband with permissions, and the RDMA device
// each node serves.
func (f *FS) devNodes(ws *warnings) []DevNode {
	dir := f.rootPath("dev/infiniband")
	ents, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ws.add(f, dir, err)
		}
		return nil
	}
	var out []DevNode
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		st, err := os.Stat(path)
		if err != nil {
			ws.add(f, path, err)
			continue
		}
		n := DevNode{Name: e.Name(), Mode: lsMode(st.Mode()), CharDev: st.Mode()&fs.ModeCharDevice != 0, WorldRW: st.Mode().Perm()&0o006 == 0o006}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok {
			n.UID, n.GID = int(sys.Uid), int(sys.Gid)
		}
		for _, class := range []string{"infiniband_verbs", "infiniband_mad"} {
			cdir := f.sysPath("class", class, e.Name())
			if ib, err := f.read(filepath.Join(cdir, "ibdev")); err == nil {
				n.IBDev = strings.TrimSpace(ib)
				n.MajorMin = f.optional(ws, filepath.Join(cdir, "dev"))
			}
		}
		out = append(out, n)
	}
	return out
}

// uverbsABIs reads the uverbs ABI version and each uverbs device's
// driver ABI version (Documentation/ABI/stable/sysfs-class-infiniband,
// "uverbs" section).
func (f *FS) uverbsABIs(ws *warnings) (int, map[string]int) {
	class := f.sysPath("class/infiniband_verbs")
	abi := int(f.optionalUint(ws, filepath.Join(class, "abi_version"), 16))
	var drivers map[string]int
	names, _ := f.listDir(class)
	for _, n := range names {
		if !strings.HasPrefix(n, "uverbs") {
			continue
		}
		path := filepath.Join(class, n, "abi_version")
		s := f.optional(ws, path)
		if s == "" {
			continue
		}
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			ws.add(f, path, fmt.Errorf("not an ABI version: %q", s))
			continue
		}
		if drivers == nil {
			drivers = map[string]int{}
		}
		drivers[n] = v
	}
	return abi, drivers
}

// lsMode prints a mode the way ls -l does ("crw-rw-rw-"); Go's
// FileMode.String writes "Dcrw-rw-rw-" for character devices.
func lsMode(m fs.FileMode) string {
	t := "-"
	switch {
	case m&fs.ModeCharDevice != 0:
		t = "c"
	case m&fs.ModeDevice != 0:
		t = "b"
	case m&fs.ModeDir != 0:
		t = "d"
	case m&fs.ModeSymlink != 0:
		t = "l"
	}
	return t + m.Perm().String()[1:]
}

// String summarises the facts in one line for logs.
func (h Host) String() string {
	var mods []string
	for _, m := range h.Modules {
		mods = append(mods, m.Name)
	}
	return fmt.Sprintf("kernel %s, rdma-core %s (%s), %d CPUs, modules %s, memlock %s/%s",
		h.KernelRelease, h.RDMACore.Version, h.RDMACore.Source, h.CPUs, strings.Join(mods, ","), h.MemlockSoft, h.MemlockHard)
}
