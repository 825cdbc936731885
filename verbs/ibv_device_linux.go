//go:build linux && cgo

package verbs

/*
#cgo LDFLAGS: -libverbs
#include <stdlib.h>
#include <string.h>
#include "shim.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"syscall"
	"unsafe"
)

// Backend names the verbs implementation this build uses: libibverbs,
// the rdma-core library behind verbs.h.
const Backend = "libibverbs"

// ctxHandle owns a struct ibv_context.
type ctxHandle struct {
	ctx *C.struct_ibv_context
}

// guid converts a __be64 GUID as libibverbs returns it to host order.
func guid(be C.__be64) uint64 {
	var b [8]byte
	*(*C.__be64)(unsafe.Pointer(&b[0])) = be
	return binary.BigEndian.Uint64(b[:])
}

func deviceInfo(d *C.struct_ibv_device) DeviceInfo {
	return DeviceInfo{
		Name:      C.GoString(C.ibv_get_device_name(d)),
		GUID:      guid(C.ibv_get_device_guid(d)),
		NodeType:  NodeType(d.node_type),
		Transport: Transport(d.transport_type),
	}
}

// withDeviceList calls fn with the device list and frees it after.
func withDeviceList(fn func([]*C.struct_ibv_device) error) error {
	var n C.int
	list, errno := C.vs_get_device_list(&n)
	if list == nil {
		en, _ := errno.(syscall.Errno)
		err := errnoError("ibv_get_device_list", en)
		return errors.Join(ErrNoDevice, err)
	}
	defer C.ibv_free_device_list(list)
	return fn(unsafe.Slice(list, int(n)))
}

func listDevices() ([]DeviceInfo, error) {
	var out []DeviceInfo
	err := withDeviceList(func(devs []*C.struct_ibv_device) error {
		for _, d := range devs {
			out = append(out, deviceInfo(d))
		}
		return nil
	})
	if err == nil && len(out) == 0 {
		err = &Error{Op: "ibv_get_device_list", Err: ErrNoDevice,
			Hint: "the kernel has RDMA but no device: load a driver, or add Soft-RoCE with `rdma link add rxe0 type rxe netdev IFACE`"}
	}
	return out, err
}

func openDevice(name string) (*ctxHandle, DeviceInfo, error) {
	var h *ctxHandle
	var info DeviceInfo
	found := false
	err := withDeviceList(func(devs []*C.struct_ibv_device) error {
		for _, d := range devs {
			if C.GoString(C.ibv_get_device_name(d)) != name {
				continue
			}
			found = true
			info = deviceInfo(d)
			ctx, errno := C.ibv_open_device(d)
			if ctx == nil {
				en, _ := errno.(syscall.Errno)
				return errnoError("ibv_open_device", en)
			}
			h = &ctxHandle{ctx: ctx}
			return nil
		}
		return nil
	})
	if err != nil {
		return nil, info, err
	}
	if !found {
		return nil, info, &Error{Op: "ibv_open_device", Err: ErrNoDevice, Hint: "no device named " + name + "; `verbscope devices` lists them"}
	}
	return h, info, nil
}

func (h *ctxHandle) numCompVectors() int { return int(h.ctx.num_comp_vectors) }

func (h *ctxHandle) close() error {
	if rc := C.ibv_close_device(h.ctx); rc != 0 {
		return errnoError("ibv_close_device", syscall.Errno(-rc))
	}
	return nil
}

func (h *ctxHandle) queryDevice() (DeviceAttr, error) {
	var a C.struct_ibv_device_attr
	if rc := C.ibv_query_device(h.ctx, &a); rc != 0 {
		return DeviceAttr{}, errnoError("ibv_query_device", syscall.Errno(rc))
	}
	return DeviceAttr{
		FWVer:              C.GoString(&a.fw_ver[0]),
		NodeGUID:           guid(a.node_guid),
		SysImageGUID:       guid(a.sys_image_guid),
		MaxMRSize:          uint64(a.max_mr_size),
		PageSizeCap:        uint64(a.page_size_cap),
		VendorID:           uint32(a.vendor_id),
		VendorPartID:       uint32(a.vendor_part_id),
		HWVer:              uint32(a.hw_ver),
		MaxQP:              int(a.max_qp),
		MaxQPWR:            int(a.max_qp_wr),
		DeviceCapFlags:     uint32(a.device_cap_flags),
		MaxSGE:             int(a.max_sge),
		MaxSGERd:           int(a.max_sge_rd),
		MaxCQ:              int(a.max_cq),
		MaxCQE:             int(a.max_cqe),
		MaxMR:              int(a.max_mr),
		MaxPD:              int(a.max_pd),
		MaxQPRdAtom:        int(a.max_qp_rd_atom),
		MaxEECRdAtom:       int(a.max_ee_rd_atom),
		MaxResRdAtom:       int(a.max_res_rd_atom),
		MaxQPInitRdAtom:    int(a.max_qp_init_rd_atom),
		MaxEECInitRdAtom:   int(a.max_ee_init_rd_atom),
		AtomicCap:          AtomicCap(a.atomic_cap),
		MaxEE:              int(a.max_ee),
		MaxRDD:             int(a.max_rdd),
		MaxMW:              int(a.max_mw),
		MaxRawIPv6QP:       int(a.max_raw_ipv6_qp),
		MaxRawEthyQP:       int(a.max_raw_ethy_qp),
		MaxMcastGrp:        int(a.max_mcast_grp),
		MaxMcastQPAttach:   int(a.max_mcast_qp_attach),
		MaxTotalMcastQPAtt: int(a.max_total_mcast_qp_attach),
		MaxAH:              int(a.max_ah),
		MaxFMR:             int(a.max_fmr),
		MaxMapPerFMR:       int(a.max_map_per_fmr),
		MaxSRQ:             int(a.max_srq),
		MaxSRQWR:           int(a.max_srq_wr),
		MaxSRQSGE:          int(a.max_srq_sge),
		MaxPKeys:           int(a.max_pkeys),
		LocalCAAckDelay:    int(a.local_ca_ack_delay),
		PhysPortCnt:        int(a.phys_port_cnt),
	}, nil
}

func (h *ctxHandle) queryPort(port int) (PortAttr, error) {
	var a C.struct_ibv_port_attr
	if rc := C.vs_query_port(h.ctx, C.uint8_t(port), &a); rc != 0 {
		return PortAttr{}, errnoError("ibv_query_port", syscall.Errno(rc))
	}
	return PortAttr{
		State:         PortState(a.state),
		MaxMTU:        MTU(a.max_mtu),
		ActiveMTU:     MTU(a.active_mtu),
		GIDTblLen:     int(a.gid_tbl_len),
		PortCapFlags:  uint32(a.port_cap_flags),
		MaxMsgSz:      uint32(a.max_msg_sz),
		BadPKeyCntr:   uint32(a.bad_pkey_cntr),
		QKeyViolCntr:  uint32(a.qkey_viol_cntr),
		PKeyTblLen:    int(a.pkey_tbl_len),
		LID:           uint16(a.lid),
		SMLID:         uint16(a.sm_lid),
		LMC:           uint8(a.lmc),
		MaxVLNum:      uint8(a.max_vl_num),
		SMSL:          uint8(a.sm_sl),
		SubnetTimeout: uint8(a.subnet_timeout),
		InitTypeReply: uint8(a.init_type_reply),
		ActiveWidth:   uint8(a.active_width),
		ActiveSpeed:   uint8(a.active_speed),
		PhysState:     PhysState(a.phys_state),
		LinkLayer:     LinkLayer(a.link_layer),
		Flags:         uint8(a.flags),
		PortCapFlags2: uint16(a.port_cap_flags2),
	}, nil
}

func gidEntry(e *C.struct_ibv_gid_entry) GIDEntry {
	var g GID
	copy(g[:], C.GoBytes(unsafe.Pointer(&e.gid), 16))
	return GIDEntry{GID: g, Index: int(e.gid_index), Port: int(e.port_num), Type: GIDType(e.gid_type), NetdevIfindex: int(e.ndev_ifindex)}
}

func (h *ctxHandle) queryGID(port, index int) (GIDEntry, error) {
	var e C.struct_ibv_gid_entry
	if rc := C.vs_query_gid_ex(h.ctx, C.uint32_t(port), C.uint32_t(index), &e); rc != 0 {
		return GIDEntry{}, errnoError("ibv_query_gid_ex", syscall.Errno(rc))
	}
	return gidEntry(&e), nil
}

func (h *ctxHandle) gidTable() ([]GIDEntry, error) {
	var da C.struct_ibv_device_attr
	if rc := C.ibv_query_device(h.ctx, &da); rc != 0 {
		return nil, errnoError("ibv_query_device", syscall.Errno(rc))
	}
	max := 0
	for p := 1; p <= int(da.phys_port_cnt); p++ {
		var pa C.struct_ibv_port_attr
		if rc := C.vs_query_port(h.ctx, C.uint8_t(p), &pa); rc != 0 {
			return nil, errnoError("ibv_query_port", syscall.Errno(rc))
		}
		max += int(pa.gid_tbl_len)
	}
	if max == 0 {
		return nil, nil
	}
	// The table is filled by the library; C memory keeps it off the Go heap.
	buf := (*C.struct_ibv_gid_entry)(C.calloc(C.size_t(max), C.size_t(unsafe.Sizeof(C.struct_ibv_gid_entry{}))))
	if buf == nil {
		return nil, errnoError("ibv_query_gid_table", syscall.ENOMEM)
	}
	defer C.free(unsafe.Pointer(buf))
	n, errno := C.vs_query_gid_table(h.ctx, buf, C.size_t(max))
	if n < 0 {
		en, _ := errno.(syscall.Errno)
		if en == 0 {
			en = syscall.Errno(-n)
		}
		return nil, errnoError("ibv_query_gid_table", en)
	}
	entries := unsafe.Slice(buf, max)[:n]
	out := make([]GIDEntry, 0, n)
	for i := range entries {
		out = append(out, gidEntry(&entries[i]))
	}
	return out, nil
}
