package inspect

import (
	"fmt"
)

// Object is what every restrack object in an nldev dump carries: the
// device it belongs to and who created it (fill_nldev_handle and
// fill_res_name_pid in drivers/infiniband/core/nldev.c), plus the
// driver-specific attributes (the RDMA_NLDEV_ATTR_DRIVER nest).
type Object struct {
	// DevIndex and DevName identify the ib_device (RDMA_NLDEV_ATTR_DEV_INDEX,
	// DEV_NAME); iproute2 calls them ifindex and ifname.
	DevIndex uint32
	DevName  string
	// PID is the creating process (RDMA_NLDEV_ATTR_RES_PID), absent for
	// kernel objects and for objects of a zombie task.
	PID uint32
	// KernName is the kernel module that owns a kernel object
	// (RDMA_NLDEV_ATTR_RES_KERN_NAME): "ib_core", "rdma_cm", ...
	KernName string
	// TGID is the process PID belongs to (Tgid in /proc/PID/status):
	// the kernel records the thread that created the object, so for a
	// multi-threaded program (any Go program) PID is a thread id. Zero
	// for kernel objects and when the task is gone.
	TGID uint32
	// Comm is what `rdma resource show` prints as comm: /proc/PID/comm
	// for user objects (empty when the process is gone or in another pid
	// namespace), KernName for kernel objects.
	Comm string
	// Owner is what /proc said of the creating task when the object
	// was dumped: alive, a zombie, gone, or (no pid sent) exited.
	Owner Owner
	// Driver holds the driver's own attributes in the order sent; rxe
	// sends none. iproute2 prints them with -dd as drv_KEY.
	Driver []DriverAttr
	// Attrs records which attributes the kernel sent.
	Attrs AttrSet
}

// Kernel reports whether the kernel owns the object (it has a kern name
// and no pid; iproute2 prints its comm in brackets).
func (o *Object) Kernel() bool { return o.Attrs.Has(AttrResKernName) }

// HasPID reports whether the kernel sent a pid (user objects of live
// processes).
func (o *Object) HasPID() bool { return o.Attrs.Has(AttrResPID) }

// common decodes the attributes shared by all object entries and reports
// whether it consumed the current one.
func (o *Object) common(it *attrIter) bool {
	switch it.typ {
	case AttrResPID:
		o.PID = it.u32()
	case AttrResKernName:
		o.KernName = it.str()
		o.Comm = o.KernName
	case AttrDriver:
		d, err := decodeDriver(it.val)
		if err != nil && it.err == nil {
			it.err = err
		}
		o.Driver = d
	default:
		return false
	}
	o.Attrs.Add(it.typ)
	return true
}

// DriverAttr is one driver-specific attribute of an object: a key, a
// value of one of the DRIVER_* types, and whether the driver asked for hex
// printing (rdma_nl_put_driver_u32_hex and friends in nldev.c).
type DriverAttr struct {
	Key string
	// Value is a string, int32, uint32, int64 or uint64, after the
	// attribute type (RDMA_NLDEV_ATTR_DRIVER_STRING/S32/U32/S64/U64).
	Value any
	Hex   bool
}

// decodeDriver decodes an RDMA_NLDEV_ATTR_DRIVER nest: a flat list of
// {DRIVER_STRING key, optional DRIVER_PRINT_TYPE, value} tuples, as the
// kernel's rdma_nl_put_driver_* functions write it and iproute2's
// print_driver_table (rdma/utils.c) reads it.
func decodeDriver(b []byte) ([]DriverAttr, error) {
	var out []DriverAttr
	var key string
	haveKey, hex := false, false
	it := newAttrIter(b)
	for it.next() {
		if !haveKey {
			if it.typ != AttrDriverString {
				return out, fmt.Errorf("driver attributes: expected a key string, got %s", attrName(it.typ))
			}
			key, haveKey = it.str(), true
			continue
		}
		var v any
		switch it.typ {
		case AttrDriverPrintType:
			hex = it.u8() == driverPrintHex
			continue
		case AttrDriverString:
			v = it.str()
		case AttrDriverS32:
			v = int32(it.u32())
		case AttrDriverU32:
			v = it.u32()
		case AttrDriverS64:
			v = int64(it.u64())
		case AttrDriverU64:
			v = it.u64()
		default:
			return out, fmt.Errorf("driver attribute %q: unexpected %s", key, attrName(it.typ))
		}
		if it.err != nil {
			break
		}
		out = append(out, DriverAttr{Key: key, Value: v, Hex: hex})
		haveKey, hex = false, false
	}
	if it.err != nil {
		return out, fmt.Errorf("driver attributes: %w", it.err)
	}
	if haveKey {
		return out, fmt.Errorf("driver attribute %q has no value", key)
	}
	return out, nil
}

// devHandle is the device part of every nldev reply (fill_nldev_handle).
type devHandle struct {
	index uint32
	name  string
	has   AttrSet
}

// splitReply decodes the top level of a reply message: the device handle
// and the payload of one table attribute (RES_QP, RES_CQ, ...). Other
// top-level attributes go to extra when it is not nil.
func splitReply(data []byte, table Attr, prevName string, extra func(it *attrIter)) (devHandle, []byte, bool, error) {
	var h devHandle
	var tab []byte
	found := false
	it := newAttrIter(data)
	for it.next() {
		switch it.typ {
		case AttrDevIndex:
			h.index = it.u32()
		case AttrDevName:
			h.name = it.strIntern(prevName)
		case table:
			tab, found = it.val, true
		default:
			if extra != nil {
				extra(&it)
			}
		}
		h.has.Add(it.typ)
	}
	if it.err != nil {
		return h, nil, false, it.err
	}
	if !h.has.Has(AttrDevIndex) || !h.has.Has(AttrDevName) {
		return h, nil, false, fmt.Errorf("reply lacks the device index or name")
	}
	return h, tab, found, nil
}

// forEachEntry calls fn with the payload of each entry attribute of a
// table nest; anything else in the table is an error.
func forEachEntry(tab []byte, entry Attr, fn func(i int, payload []byte) error) error {
	it := newAttrIter(tab)
	n := 0
	for it.next() {
		if it.typ != entry {
			return fmt.Errorf("table holds %s, expected %s entries", attrName(it.typ), attrName(entry))
		}
		if err := fn(n, it.val); err != nil {
			return err
		}
		n++
	}
	return it.err
}

// fillOwner names the object's owner as a dump reads it: the kernel, a
// live process (its comm, thread group and owner from /proc), or one
// that exited.
func (o *Object) fillOwner(cc *commCache) {
	switch {
	case o.Kernel():
		o.Owner = OwnerKernel
	case o.HasPID():
		o.Comm, _ = cc.lookup(o.PID)
		o.TGID = cc.tgid(o.PID)
		o.Owner = cc.owner(o.PID)
	default:
		o.Owner = OwnerExited
	}
}

// Base returns the fields every object kind shares (embedded in QP, CQ,
// MR, PD, Context, SRQ and CMID), so code generic over the kinds can
// reach them.
func (o *Object) Base() *Object { return o }
