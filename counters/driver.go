package counters

import "strings"

// moduleDriver maps the kernel module (or PCI driver) a device's sysfs
// "device/driver" link names to the registry's driver. The link leads to
// the function's core or Ethernet driver, not the RDMA one, for most
// hardware: mlx5_core (mlx5_ib), bnxt_en (bnxt_re), ice and i40e (irdma),
// hns3 (hns_roce_hw_v2).
var moduleDriver = map[string]string{
	"mlx5_core": "mlx5", "mlx5_ib": "mlx5",
	"mlx4_core": "mlx4", "mlx4_ib": "mlx4",
	"hfi1":    "hfi1",
	"bnxt_en": "bnxt_re", "bnxt_re": "bnxt_re",
	"ice": "irdma", "idpf": "irdma", "irdma": "irdma", "i40e": "irdma", "i40iw": "i40iw",
	"efa":  "efa",
	"hns3": "hns", "hns_roce_hw_v2": "hns", "hns_roce": "hns",
	"erdma": "erdma",
	"ionic": "ionic", "ionic_rdma": "ionic",
	"rdma_rxe": "rxe", "rxe": "rxe",
	"siw": "siw",
}

// namePrefixes are the names drivers give their devices when nobody
// renames them (ib_register_device's name argument), longest first where
// one prefixes another.
var namePrefixes = []struct{ prefix, driver string }{
	{"mlx5_", "mlx5"}, {"mlx4_", "mlx4"}, {"hfi1_", "hfi1"}, {"bnxt_re", "bnxt_re"},
	{"irdma", "irdma"}, {"i40iw", "i40iw"}, {"efa_", "efa"}, {"hns_", "hns"}, {"erdma_", "erdma"},
	{"ionic_", "ionic"}, {"rxe", "rxe"}, {"siw_", "siw"},
}

// driverOf names the registry's driver for a kernel module or PCI
// driver name, as a device's sysfs "device/driver" link names it (with
// or without the path before it): "mlx5_core" gives "mlx5". "" for a
// module the registry has no table for.
func driverOf(module string) string {
	if i := strings.LastIndexByte(module, '/'); i >= 0 {
		module = module[i+1:]
	}
	return moduleDriver[module]
}

// DeviceDriver names the registry's driver of a device from what sysfs
// shows of it: the module its device link leads to; else, for a software
// device (one with a parent netdev file, which only rxe and siw have),
// "siw" when its node type is an iWARP RNIC and "rxe" otherwise; else the
// device's default name (mlx5_0, irdma1, efa_0). "" when none of them
// says, as for a renamed device (rocep1s0f0, udev's names) whose device
// link cannot be read.
func DeviceDriver(module, devName string, hasParent bool, nodeType string) string {
	if d := driverOf(module); d != "" {
		return d
	}
	if hasParent {
		if strings.Contains(strings.ToUpper(nodeType), "RNIC") {
			return "siw"
		}
		return "rxe"
	}
	for _, p := range namePrefixes {
		if strings.HasPrefix(devName, p.prefix) {
			return p.driver
		}
	}
	return ""
}
