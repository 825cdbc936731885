package sysfsmon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/verbscope/verbscope/counters"
	"github.com/verbscope/verbscope/rdma"
)

// Device is one RDMA device, /sys/class/infiniband/<name>
// (Documentation/ABI/stable/sysfs-class-infiniband), with where it sits in
// the machine: its netdevs, PCI function and NUMA node.
type Device struct {
	Name         string `json:"dev"`
	NodeType     int    `json:"node_type_num"`  // node_type's number: 1 CA, 2 switch, 3 router, 4 RNIC ...
	NodeTypeName string `json:"node_type"`      // node_type's name: "CA"
	NodeGUID     string `json:"node_guid"`      // as sysfs prints it: "bc8a:ccff:fe52:0a47"
	SysImageGUID string `json:"sys_image_guid"` // sys_image_guid
	FWVer        string `json:"fw_ver"`         // fw_ver; empty for rxe
	HCAType      string `json:"hca_type"`       // hca_type (mlx5: "MT4123"); empty when the driver has none
	BoardID      string `json:"board_id"`       // board_id
	HWRev        string `json:"hw_rev"`         // hw_rev
	NodeDesc     string `json:"node_desc"`      // node_desc
	// Parent is the netdev a software device (rxe, siw) runs on: its
	// "parent" file; empty for hardware.
	Parent string `json:"parent"`
	// Soft is true for a software device: one without a "device" link to
	// hardware (it lives under /sys/devices/virtual).
	Soft bool `json:"soft"`
	// PCI is the PCI function the device link leads to ("0000:3b:00.0"),
	// or, without a device link, the one the class entry's own symlink
	// into /sys/devices sits below; empty for software devices.
	PCI string `json:"pci"`
	// Driver is the counter registry's name of the device's driver
	// (counters.DeviceDriver: "mlx5", "rxe", "efa"...) from the module the
	// device link's driver/ leads to, the parent file of a software
	// device, or the device's default name; empty when none says.
	Driver string `json:"driver"`
	// Module is the kernel driver the device link's driver/ names
	// ("mlx5_core"); empty for software devices and trees without it.
	Module string `json:"module"`
	// NUMANode is the PCI function's numa_node; nil when unknown (software
	// devices), -1 where the platform has no NUMA information.
	NUMANode *int `json:"numa_node"`
	// LocalCPUs is the PCI function's local_cpulist: the CPUs of its node.
	LocalCPUs string `json:"local_cpus"`
	// Netdevs are the network interfaces of the device: the parent, the
	// PCI function's net/ folder, and every netdev a GID is bound to.
	Netdevs []string `json:"netdevs"`
	// Uverbs is the device's /dev/infiniband/uverbsN, from
	// /sys/class/infiniband_verbs/uverbsN/ibdev; empty without ib_uverbs.
	Uverbs   string    `json:"uverbs"`
	Ports    []Port    `json:"ports"`
	Warnings []Warning `json:"warnings"`
}

// Port is one port of a device, /sys/class/infiniband/<dev>/ports/<N>
// (Documentation/ABI/stable/sysfs-class-infiniband).
type Port struct {
	Device        string         `json:"dev"`
	Port          int            `json:"port"`
	State         rdma.PortState `json:"state_num"`      // state: enum ib_port_state (include/rdma/ib_verbs.h)
	StateName     string         `json:"state"`          // "ACTIVE", as the kernel names it
	PhysState     rdma.PhysState `json:"phys_state_num"` // phys_state: enum ib_port_phys_state
	PhysStateName string         `json:"phys_state"`     // "LinkUp", as the kernel names it
	RateText      string         `json:"rate"`           // rate as printed: "10 Gb/sec (1X FDR10)"
	Rate
	LID   uint16 `json:"lid"`    // lid (hex in sysfs); see LIDKnown
	SMLID uint16 `json:"sm_lid"` // sm_lid; see SMLIDKnown
	// LIDKnown and SMLIDKnown are false when the lid or sm_lid file is
	// missing (not every driver or recorded tree has them): the LID is
	// then unknown, not 0. On an ACTIVE InfiniBand port a known LID of 0
	// means no subnet manager has assigned one.
	LIDKnown   bool   `json:"lid_known"`
	SMLIDKnown bool   `json:"sm_lid_known"`
	SMSL       uint8  `json:"sm_sl"`      // sm_sl
	LMC        uint8  `json:"lmc"`        // lid_mask_count
	CapMask    uint32 `json:"cap_mask"`   // cap_mask: IB PortInfo CapabilityMask
	LinkLayer  string `json:"link_layer"` // "InfiniBand" or "Ethernet"
	// Netdev is the netdev this port's GIDs are bound to (RoCE); empty on
	// InfiniBand.
	Netdev string `json:"netdev"`
	// NetdevMTU and NetdevState are the netdev's mtu and operstate
	// (/sys/class/net/<netdev>, Documentation/ABI/testing/sysfs-class-net):
	// RoCE's active MTU is the largest IB MTU below the netdev's.
	NetdevMTU   int    `json:"netdev_mtu"`
	NetdevState string `json:"netdev_operstate"`
	// GIDTableLen is the number of GID table entries (files in gids/).
	GIDTableLen int `json:"gid_tbl_len"`
	// GIDs are the populated (non-zero) GID table entries.
	GIDs []GID `json:"gids"`
	// RecommendedGIDIndex is the GID index to use for RoCE v2 over IPv4
	// (the lowest index whose type is RoCE v2 and whose GID is an
	// IPv4-mapped address); on InfiniBand it is 0; -1 when there is none
	// (no IPv4 address on the netdev).
	RecommendedGIDIndex int `json:"recommended_gid_index"`
	// PKeyTableLen is the number of P_Key table entries (files in pkeys/).
	PKeyTableLen int `json:"pkey_tbl_len"`
	// PKeys are the non-zero P_Keys, "0xffff" style, in table order.
	PKeys []string `json:"pkeys"`
}

// GID is one populated entry of ports/N/gids with its gid_attrs
// (Documentation/ABI/stable/sysfs-class-infiniband).
type GID struct {
	Index int    `json:"index"`
	GID   string `json:"gid"`  // as sysfs prints it: "0000:0000:0000:0000:0000:ffff:0a00:0001"
	Addr  string `json:"addr"` // as an IPv6 address, the way ibv_devinfo prints it: "::ffff:10.0.0.1"
	// IP is the address the GID encodes: "10.0.0.1" for an IPv4-mapped
	// GID (RoCE v2 over IPv4), otherwise the IPv6 address.
	IP     string `json:"ip"`
	IPv4   bool   `json:"ipv4"`
	Type   string `json:"type"`   // gid_attrs/types: "RoCE v2", "IB/RoCE v1"; empty on pure IB
	Netdev string `json:"netdev"` // gid_attrs/ndevs: the netdev of a RoCE GID
}

const classIB = "class/infiniband"

// ErrNoRDMA means the kernel has no RDMA devices class at all: no
// /sys/class/infiniband, because ib_core is not loaded.
var ErrNoRDMA = errors.New("no /sys/class/infiniband: the kernel has no RDMA core loaded (modprobe ib_core and a driver such as mlx5_ib or rdma_rxe)")

// DeviceNames lists /sys/class/infiniband, sorted.
func (f *FS) DeviceNames() ([]string, error) {
	ents, err := os.ReadDir(f.sysPath(classIB))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sysfsmon: devices: %w", ErrNoRDMA)
	}
	if err != nil {
		return nil, fmt.Errorf("sysfsmon: devices: list %s: %w", f.logical(f.sysPath(classIB)), err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names, nil
}

// Devices reads every RDMA device with its ports, GIDs and P_Keys. A
// device whose files are odd is still returned, with Warnings; only an
// unreadable /sys/class/infiniband fails the call.
func (f *FS) Devices() ([]Device, error) { return f.devices(nil) }

// devices reads the devices; a port found in prev in the same state keeps
// its GID table from there (see gidWatch).
func (f *FS) devices(prev []Device) ([]Device, error) {
	names, err := f.DeviceNames()
	if err != nil {
		return nil, err
	}
	uverbs := f.uverbsMap()
	devs := make([]Device, 0, len(names))
	for _, n := range names {
		d := f.readDevice(n, prev)
		d.Uverbs = uverbs[n]
		devs = append(devs, d)
	}
	return devs, nil
}

// Device reads one device by name.
func (f *FS) Device(name string) (Device, error) {
	if strings.ContainsAny(name, "/\x00") || name == "" || name == "." || name == ".." {
		return Device{}, fmt.Errorf("sysfsmon: device: %q is not a device name", name)
	}
	if _, err := os.Stat(f.sysPath(classIB, name)); err != nil {
		return Device{}, fmt.Errorf("sysfsmon: device: %s: %w", name, err)
	}
	d := f.readDevice(name, nil)
	d.Uverbs = f.uverbsMap()[name]
	return d, nil
}

func (f *FS) readDevice(name string, prev []Device) Device {
	var ws warnings
	dir := f.sysPath(classIB, name)
	d := Device{Name: name}
	if s := f.optional(&ws, filepath.Join(dir, "node_type")); s != "" {
		n, typ, err := parseState(s)
		if err != nil {
			ws.add(f, filepath.Join(dir, "node_type"), err)
		}
		d.NodeType, d.NodeTypeName = n, typ
	}
	d.NodeGUID = f.optional(&ws, filepath.Join(dir, "node_guid"))
	d.SysImageGUID = f.optional(&ws, filepath.Join(dir, "sys_image_guid"))
	d.FWVer = f.optional(&ws, filepath.Join(dir, "fw_ver"))
	d.HCAType = f.optional(&ws, filepath.Join(dir, "hca_type"))
	d.BoardID = f.optional(&ws, filepath.Join(dir, "board_id"))
	d.HWRev = f.optional(&ws, filepath.Join(dir, "hw_rev"))
	d.NodeDesc = f.optional(&ws, filepath.Join(dir, "node_desc"))
	d.Parent = f.optional(&ws, filepath.Join(dir, "parent"))
	f.readPlacement(&ws, &d)
	d.Driver = counters.DeviceDriver(d.Module, d.Name, d.Parent != "", d.NodeTypeName)

	ports, err := f.listDir(filepath.Join(dir, "ports"))
	if err != nil {
		ws.add(f, filepath.Join(dir, "ports"), err)
	}
	for _, p := range numericNames(ports) {
		port := f.readPort(&ws, name, p, prev)
		if port.Netdev == "" && port.LinkLayer == "Ethernet" {
			port.Netdev = d.Parent
		}
		f.readNetdev(&ws, &port)
		d.Ports = append(d.Ports, port)
	}
	netdevs := map[string]bool{}
	for _, n := range d.Netdevs {
		netdevs[n] = true
	}
	for _, p := range d.Ports {
		for _, g := range p.GIDs {
			if g.Netdev != "" {
				netdevs[g.Netdev] = true
			}
		}
	}
	d.Netdevs = sortedKeys(netdevs)
	d.Warnings = ws
	return d
}

// bdf matches a PCI address, domain:bus:device.function. Compiled at first
// use, not in every verbscope process at start.
var bdf = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{4,}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$`)
})

// readPlacement follows the device link to the PCI function
// (Documentation/ABI/testing/sysfs-bus-pci: numa_node, local_cpulist,
// net/) and notes the parent netdev of software devices. It returns the
// PCI function's folder, or "" when there is none.
func (f *FS) readPlacement(ws *warnings, d *Device) string {
	link := f.sysPath(classIB, d.Name, "device")
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ws.add(f, link, err)
		}
		// On a live system /sys/class/infiniband/X is itself a symlink
		// into /sys/devices; below a PCI function it names the
		// hardware even where the device link is missing.
		if pciDir := pciAncestor(f.classReal(d.Name)); pciDir != "" {
			real = pciDir
		} else {
			d.Soft = true
			if d.Parent != "" {
				d.Netdevs = []string{d.Parent}
			}
			return ""
		}
	}
	d.Module = f.driverModule(real)
	// The link may lead to an auxiliary or SF device below the PCI
	// function (mlx5_core.sf.2); the PCI function is the nearest
	// ancestor named like one.
	pciDir := pciAncestor(real)
	if pciDir == "" {
		return ""
	}
	if d.Module == "" {
		d.Module = f.driverModule(pciDir)
	}
	d.PCI = filepath.Base(pciDir)
	if s := f.optional(ws, filepath.Join(pciDir, "numa_node")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			ws.add(f, filepath.Join(pciDir, "numa_node"), fmt.Errorf("not a node number: %q", s))
		} else {
			d.NUMANode = &n
		}
	}
	d.LocalCPUs = f.optional(ws, filepath.Join(pciDir, "local_cpulist"))
	nets, err := f.listDir(filepath.Join(real, "net"))
	if err != nil {
		ws.add(f, filepath.Join(real, "net"), err)
	}
	if real != pciDir && len(nets) == 0 {
		nets, _ = f.listDir(filepath.Join(pciDir, "net"))
	}
	d.Netdevs = append(d.Netdevs, nets...)
	if d.Parent != "" {
		d.Netdevs = append(d.Netdevs, d.Parent)
	}
	return pciDir
}

// DeviceDriver is Device.Driver without reading the rest of the device
// (the module its sysfs "device/driver" link names, Documentation/ABI/
// testing/sysfs-class-infiniband; else what its parent file and name
// say): what the counters registry keys a device's counters by.
func (f *FS) DeviceDriver(name string) string {
	d := Device{Name: name}
	var ws warnings
	d.NodeTypeName = f.optional(&ws, f.sysPath(classIB, name, "node_type"))
	d.Parent = f.optional(&ws, f.sysPath(classIB, name, "parent"))
	link := f.sysPath(classIB, name, "device")
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		real = pciAncestor(f.classReal(name))
	}
	if real != "" {
		if d.Module = f.driverModule(real); d.Module == "" {
			d.Module = f.driverModule(pciAncestor(real))
		}
	}
	return counters.DeviceDriver(d.Module, name, d.Parent != "", d.NodeTypeName)
}

// driverModule is the name of the driver a device folder's driver link
// leads to (Documentation/ABI/testing/sysfs-bus-pci: driver), or "".
func (f *FS) driverModule(dir string) string {
	if dir == "" {
		return ""
	}
	drv, err := filepath.EvalSymlinks(filepath.Join(dir, "driver"))
	if err != nil {
		return ""
	}
	return filepath.Base(drv)
}

// pciAncestor is the nearest folder at or above p named like a PCI
// function, or "".
func pciAncestor(p string) string {
	if p == "" {
		return ""
	}
	for ; p != filepath.Dir(p); p = filepath.Dir(p) {
		if bdf().MatchString(filepath.Base(p)) {
			return p
		}
	}
	return ""
}

// classReal is where the class entry of a device really is, when it is a
// symlink (as on a live system: ../../devices/.../infiniband/X); "" when
// it is not one or cannot be followed.
func (f *FS) classReal(name string) string {
	p := f.sysPath(classIB, name)
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	return real
}

// uverbsMap maps device names to their uverbs char device names through
// /sys/class/infiniband_verbs/uverbsN/ibdev.
func (f *FS) uverbsMap() map[string]string {
	m := map[string]string{}
	names, _ := f.listDir(f.sysPath("class/infiniband_verbs"))
	for _, n := range names {
		if !strings.HasPrefix(n, "uverbs") {
			continue
		}
		if ib, err := f.read(f.sysPath("class/infiniband_verbs", n, "ibdev")); err == nil {
			m[strings.TrimSpace(ib)] = n
		}
	}
	return m
}

func (f *FS) readPort(ws *warnings, dev string, num int, prev []Device) Port {
	dir := f.sysPath(classIB, dev, "ports", strconv.Itoa(num))
	p := Port{Device: dev, Port: num, RecommendedGIDIndex: -1}
	f.readPortState(ws, dir, &p)
	lid, ok := f.optionalUintOK(ws, filepath.Join(dir, "lid"), 16)
	p.LID, p.LIDKnown = uint16(lid), ok
	smlid, ok := f.optionalUintOK(ws, filepath.Join(dir, "sm_lid"), 16)
	p.SMLID, p.SMLIDKnown = uint16(smlid), ok
	p.SMSL = uint8(f.optionalUint(ws, filepath.Join(dir, "sm_sl"), 8))
	p.LMC = uint8(f.optionalUint(ws, filepath.Join(dir, "lid_mask_count"), 8))
	p.CapMask = uint32(f.optionalUint(ws, filepath.Join(dir, "cap_mask"), 32))
	p.LinkLayer = f.optional(ws, filepath.Join(dir, "link_layer"))
	if !keepGIDs(prev, dev, &p) {
		f.readGIDs(ws, dir, &p)
	}
	f.readPKeys(ws, dir, &p)
	return p
}

// readPortState reads what changes while a port lives: state, phys_state
// and rate.
func (f *FS) readPortState(ws *warnings, dir string, p *Port) {
	state := func(file string) (int, string) {
		s := f.optional(ws, filepath.Join(dir, file))
		if s == "" {
			return 0, ""
		}
		n, name, err := parseState(s)
		if err != nil {
			ws.add(f, filepath.Join(dir, file), err)
		}
		return n, name
	}
	var n int
	n, p.StateName = state("state")
	p.State = rdma.PortState(n)
	n, p.PhysStateName = state("phys_state")
	p.PhysState = rdma.PhysState(n)
	if p.RateText = f.optional(ws, filepath.Join(dir, "rate")); p.RateText != "" {
		r, err := parseRate(p.RateText)
		if err != nil {
			ws.add(f, filepath.Join(dir, "rate"), err)
		}
		p.Rate = r
	}
}

// refreshPorts returns a copy of devs with what changes while a port lives
// re-read — ports/N/state, phys_state and rate
// (Documentation/ABI/stable/sysfs-class-infiniband) — and the rest (GID
// and P_Key tables, GUIDs) as devs had them. A GID table is one file per
// entry (rxe has 1,024), slow to read under emulation
// (docs/performance.md): a poller reads the whole tree now and then and
// the states every tick. A device or port gone since devs were read keeps
// its old values with a warning.
func (f *FS) refreshPorts(devs []Device) []Device {
	out := make([]Device, len(devs))
	for i, d := range devs {
		ws := &warnings{}
		d.Ports = append([]Port(nil), d.Ports...)
		for j := range d.Ports {
			dir := f.sysPath(classIB, d.Name, "ports", strconv.Itoa(d.Ports[j].Port))
			f.readPortState(ws, dir, &d.Ports[j])
		}
		if len(*ws) > 0 {
			d.Warnings = append(append([]Warning(nil), d.Warnings...), *ws...)
		}
		out[i] = d
	}
	return out
}

// readGIDs reads gids/ and, for populated entries only, gid_attrs/types
// and gid_attrs/ndevs: the kernel fails those with EINVAL for empty
// entries, and reading 2x1024 failing files per port would be slow noise.
func (f *FS) readGIDs(ws *warnings, dir string, p *Port) {
	names, err := f.listDir(filepath.Join(dir, "gids"))
	if err != nil {
		ws.add(f, filepath.Join(dir, "gids"), err)
	}
	idx := numericNames(names)
	p.GIDTableLen = len(idx)
	for _, i := range idx {
		path := filepath.Join(dir, "gids", strconv.Itoa(i))
		s, err := f.read(path)
		if err != nil {
			ws.add(f, path, err)
			continue
		}
		a, err := parseGID(s)
		if err != nil {
			ws.add(f, path, err)
			continue
		}
		if a.IsUnspecified() {
			continue
		}
		g := GID{Index: i, GID: strings.TrimSpace(s), Addr: a.String(), IP: a.String()}
		if a.Is4In6() {
			g.IP, g.IPv4 = a.Unmap().String(), true
		}
		g.Type = f.optional(ws, filepath.Join(dir, "gid_attrs", "types", strconv.Itoa(i)))
		g.Netdev = f.optional(ws, filepath.Join(dir, "gid_attrs", "ndevs", strconv.Itoa(i)))
		p.GIDs = append(p.GIDs, g)
		if p.Netdev == "" {
			p.Netdev = g.Netdev
		}
	}
	if p.LinkLayer == "InfiniBand" && len(p.GIDs) > 0 {
		p.RecommendedGIDIndex = p.GIDs[0].Index
		return
	}
	for _, g := range p.GIDs {
		if g.IPv4 && g.Type == "RoCE v2" {
			p.RecommendedGIDIndex = g.Index
			return
		}
	}
}

// readPKeys reads pkeys/: the table length and the non-zero entries.
func (f *FS) readPKeys(ws *warnings, dir string, p *Port) {
	names, err := f.listDir(filepath.Join(dir, "pkeys"))
	if err != nil {
		ws.add(f, filepath.Join(dir, "pkeys"), err)
	}
	idx := numericNames(names)
	p.PKeyTableLen = len(idx)
	for _, i := range idx {
		path := filepath.Join(dir, "pkeys", strconv.Itoa(i))
		v := f.optionalUint(ws, path, 16)
		if v != 0 {
			p.PKeys = append(p.PKeys, fmt.Sprintf("0x%04x", v))
		}
	}
}

// readNetdev fills in the port's netdev MTU and operstate through procfs's
// sysfs reader, which already knows /sys/class/net.
func (f *FS) readNetdev(ws *warnings, p *Port) {
	if p.Netdev == "" {
		return
	}
	nc, err := f.sysfs.NetClassByIface(p.Netdev)
	if err != nil {
		ws.add(f, f.sysPath("class/net", p.Netdev), err)
		return
	}
	if nc.MTU != nil {
		p.NetdevMTU = int(*nc.MTU)
	}
	p.NetdevState = nc.OperState
}

func sortedKeys(m map[string]bool) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
