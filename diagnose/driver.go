package diagnose

import "strings"

// driverOf names the driver of an RDMA device the way the counters
// registry keys it (counters.Lookup), from the name the kernel gives its
// devices (rxe0, mlx5_0, siw0, irdma0, bnxt_re0, efa_0, hns_0, erdma_0,
// ionic_0): enough for the registry's seed. A renamed device gives "",
// which Lookup answers for counters every driver means alike. It is a
// variable so that a reader of sysfs's device/driver link can replace it.
var driverOf = func(dev string) string {
	for _, p := range []string{"rxe", "mlx5", "mlx4", "siw", "irdma", "i40iw", "bnxt_re", "efa", "hns", "erdma", "ionic", "hfi1"} {
		if strings.HasPrefix(dev, p) {
			return p
		}
	}
	return ""
}
