//go:build !linux || !cgo

package verbs

// Backend names the verbs implementation this build uses.
const Backend = "none (built without cgo/libibverbs)"

// ctxHandle is empty: a build without libibverbs never opens a device.
type ctxHandle struct{}

func unsupported(op string) error {
	return &Error{Op: op, Err: ErrUnsupported, Hint: "this verbscope was built without libibverbs (CGO_ENABLED=0 or not Linux); rebuild with cgo and libibverbs-dev"}
}

func listDevices() ([]DeviceInfo, error) { return nil, unsupported("ibv_get_device_list") }

func openDevice(string) (*ctxHandle, DeviceInfo, error) {
	return nil, DeviceInfo{}, unsupported("ibv_open_device")
}

func (*ctxHandle) numCompVectors() int { return 0 }
func (*ctxHandle) close() error        { return nil }
func (*ctxHandle) queryDevice() (DeviceAttr, error) {
	return DeviceAttr{}, unsupported("ibv_query_device")
}
func (*ctxHandle) queryPort(int) (PortAttr, error) { return PortAttr{}, unsupported("ibv_query_port") }
func (*ctxHandle) queryGID(int, int) (GIDEntry, error) {
	return GIDEntry{}, unsupported("ibv_query_gid_ex")
}
func (*ctxHandle) gidTable() ([]GIDEntry, error) { return nil, unsupported("ibv_query_gid_table") }

type (
	pdHandle   struct{}
	chanHandle struct{}
	cqHandle   struct{}
	qpHandle   struct{}
)

func (*ctxHandle) allocPD() (*pdHandle, error) { return nil, unsupported("ibv_alloc_pd") }
func (*pdHandle) dealloc() error               { return unsupported("ibv_dealloc_pd") }
func (*ctxHandle) createCompChannel() (*chanHandle, error) {
	return nil, unsupported("ibv_create_comp_channel")
}
func (*chanHandle) destroy() error { return unsupported("ibv_destroy_comp_channel") }
func (*ctxHandle) createCQ(int, *chanHandle, int) (*cqHandle, int, error) {
	return nil, 0, unsupported("ibv_create_cq")
}
func (*cqHandle) destroy() error { return unsupported("ibv_destroy_cq") }
func (*pdHandle) createQP(QPType, *cqHandle, *cqHandle, QPCap, bool) (*qpHandle, uint32, QPCap, error) {
	return nil, 0, QPCap{}, unsupported("ibv_create_qp")
}
func (*qpHandle) destroy() error                   { return unsupported("ibv_destroy_qp") }
func (*qpHandle) modify(*QPAttr, QPAttrMask) error { return unsupported("ibv_modify_qp") }
func (*qpHandle) query(QPAttrMask) (QPAttr, error) { return QPAttr{}, unsupported("ibv_query_qp") }
