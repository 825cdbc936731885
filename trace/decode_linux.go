package trace

import (
	"bytes"
	"fmt"
	"syscall"
	"time"
	"unsafe"

	"github.com/verbscope/verbscope/rdma"
)

// The event kinds of trace.bpf.c's enum verb.
const (
	rawCreateQP = iota + 1
	rawModifyQP
	rawDestroyQP
	rawCreateObj
	rawDestroyObj
	rawAsyncEvent
	rawUVerbsErr
)

// restrackVerbs names the create and destroy of each enum
// rdma_restrack_type (include/rdma/restrack.h) trace reports.
var restrackVerbs = map[uint32][2]Verb{
	0: {VerbAllocPD, VerbDeallocPD},
	1: {VerbCreateCQ, VerbDestroyCQ},
	3: {VerbCreateCMID, VerbDestroyCMID},
	4: {VerbRegMR, VerbDeregMR},
	5: {VerbAllocContext, VerbFreeContext},
	7: {VerbCreateSRQ, VerbDestroySRQ},
}

// rawSize is the size of struct event as the BPF object writes it.
const rawSize = int(unsafe.Sizeof(tracerEvent{}))

// decode reads one ring buffer record. boot is the wall time at which
// CLOCK_MONOTONIC (bpf_ktime_get_ns) was zero.
func decode(raw []byte, boot time.Time) (Event, error) {
	var r tracerEvent
	if len(raw) < rawSize {
		return Event{}, fmt.Errorf("trace: decode: a record of %d bytes is shorter than struct event (%d): the BPF object and this binary disagree; rebuild with go generate ./trace", len(raw), rawSize)
	}
	// The record is struct event in the host's byte order (bpfel on the
	// little-endian machines the object is built for): copy it in whole.
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&r)), rawSize), raw)
	e := Event{
		Time:  boot.Add(time.Duration(r.TimeNs)),
		PID:   int(r.Pid),
		TID:   int(r.Tid),
		Comm:  cString(r.Comm[:]),
		Dev:   cString(r.Dev[:]),
		Stage: StageCore,
		Ret:   int(r.Ret),
		User:  r.User != 0,
	}
	if r.Ret < 0 {
		e.Errno = syscall.Errno(-r.Ret)
	}
	switch r.Verb {
	case rawCreateQP, rawModifyQP, rawDestroyQP:
		e.Verb = [...]Verb{VerbCreateQP, VerbModifyQP, VerbDestroyQP}[r.Verb-rawCreateQP]
		e.HasQPN, e.QPN, e.QPType = r.Ret == 0 || r.Verb != rawCreateQP, r.Qpn, rdma.QPType(r.QpType)
		e.Cap = rdma.QPCap{MaxSendWR: r.MaxSendWr, MaxRecvWR: r.MaxRecvWr, MaxSendSGE: r.MaxSendSge, MaxRecvSGE: r.MaxRecvSge, MaxInlineData: r.MaxInlineData}
		if r.Verb == rawCreateQP {
			e.Port = uint8(r.PortNum)
		}
		if r.Verb == rawModifyQP {
			e.Mask, e.Attr = rdma.QPAttrMask(r.Mask), qpAttr(&r)
			e.SGID, e.RouteHopLimit = rdma.GID(r.Sgid), r.HopLimitSet
		}
	case rawCreateObj, rawDestroyObj:
		vs, ok := restrackVerbs[r.ObjType]
		if !ok {
			return Event{}, fmt.Errorf("trace: decode: restrack type %d is not one trace knows", r.ObjType)
		}
		e.Verb = vs[r.Verb-rawCreateObj]
		e.ObjID, e.Length, e.IOVA, e.LKey, e.RKey = r.ObjId, r.Length, r.Iova, r.Lkey, r.Rkey
		if r.HasAccess != 0 {
			e.Access, e.HasAccess = rdma.AccessFlags(r.QpAccessFlags), true
		}
	case rawAsyncEvent:
		e.Verb, e.AsyncEvent = VerbAsyncEvent, rdma.EventType(r.EventType)
		e.HasQPN, e.QPN, e.QPType = r.Dev[0] != 0, r.Qpn, rdma.QPType(r.QpType)
	case rawUVerbsErr:
		if int(r.ObjType) >= len(uverbsHandlers) {
			return Event{}, fmt.Errorf("trace: decode: uverbs handler %d is not one trace attached", r.ObjType)
		}
		h := uverbsHandlers[r.ObjType]
		e.Verb, e.Stage, e.Handler, e.User = h.verb, StageUVerbs, h.fn, true
	default:
		return Event{}, fmt.Errorf("trace: decode: event kind %d is not one trace knows", r.Verb)
	}
	return e, nil
}

// qpAttr is the modify's struct ib_qp_attr; IB_AH_GRH (ah_flags bit 0)
// is is_global.
func qpAttr(r *tracerEvent) rdma.QPAttr {
	return rdma.QPAttr{
		State: rdma.QPState(r.QpState), CurState: rdma.QPState(r.CurQpState),
		PathMTU: rdma.MTU(r.PathMtu), PathMigState: rdma.MigState(r.PathMigState),
		QKey: r.Qkey, RQPSN: r.RqPsn, SQPSN: r.SqPsn, DestQPN: r.DestQpNum,
		AccessFlags: rdma.AccessFlags(r.QpAccessFlags),
		Cap:         rdma.QPCap{MaxSendWR: r.MaxSendWr, MaxRecvWR: r.MaxRecvWr, MaxSendSGE: r.MaxSendSge, MaxRecvSGE: r.MaxRecvSge, MaxInlineData: r.MaxInlineData},
		AH: rdma.AHAttr{
			GRH:  rdma.GlobalRoute{DGID: rdma.GID(r.Dgid), FlowLabel: r.FlowLabel, SGIDIndex: r.SgidIndex, HopLimit: r.HopLimit, TrafficClass: r.TrafficClass},
			DLID: r.Dlid, SL: r.Sl, StaticRate: r.StaticRate, IsGlobal: r.AhFlags&1 != 0, PortNum: uint8(r.AhPortNum),
		},
		PKeyIndex: r.PkeyIndex, AltPKeyIndex: r.AltPkeyIndex,
		EnSQDAsyncNotify: r.EnSqdAsyncNotify != 0,
		MaxRdAtomic:      r.MaxRdAtomic, MaxDestRdAtomic: r.MaxDestRdAtomic, MinRNRTimer: r.MinRnrTimer,
		Port: uint8(r.PortNum), Timeout: r.Timeout, RetryCnt: r.RetryCnt, RNRRetry: r.RnrRetry,
		AltPort: uint8(r.AltPortNum), AltTimeout: r.AltTimeout, RateLimit: r.RateLimit,
	}
}

// cString is a NUL-terminated kernel char array as a string.
func cString(b []int8) string {
	u := make([]byte, len(b))
	for i, c := range b {
		u[i] = byte(c)
	}
	if i := bytes.IndexByte(u, 0); i >= 0 {
		u = u[:i]
	}
	return string(u)
}
