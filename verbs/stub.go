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
