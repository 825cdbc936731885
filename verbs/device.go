package verbs

import "fmt"

// DeviceInfo is one entry of ibv_get_device_list(3): what is known about a
// device before it is opened.
type DeviceInfo struct {
	Name      string    // ibv_get_device_name(3), e.g. "rxe0"
	GUID      uint64    // ibv_get_device_guid(3), host byte order
	NodeType  NodeType  // struct ibv_device.node_type
	Transport Transport // struct ibv_device.transport_type
}

// GUIDString formats a GUID the way ibv_devinfo does: four groups of four
// hex digits ("bc8a:ccff:fe52:0a47").
func GUIDString(g uint64) string {
	return fmt.Sprintf("%04x:%04x:%04x:%04x", g>>48, (g>>32)&0xffff, (g>>16)&0xffff, g&0xffff)
}
