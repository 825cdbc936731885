package verbs

import "github.com/verbscope/verbscope/rdma"

import "fmt"

// WC is a work completion (struct ibv_wc, ibv_poll_cq(3)): how one work
// request ended.
type WC struct {
	WRID      uint64   // the request's WRID
	Status    WCStatus // rdma.WCSuccess, or why it failed
	Opcode    WCOpcode // what completed; undefined when Status is an error
	VendorErr uint32   // provider-specific detail of an error
	ByteLen   uint32   // bytes received (receives), or transferred for RDMA reads and atomics
	// Imm is the immediate data in host byte order, valid when Flags has
	// rdma.WCWithImm (the sender's SendWR.Imm, unchanged).
	Imm uint32
	// InvalidatedRKey is the rkey a SEND_WITH_INV invalidated, valid when
	// Flags has rdma.WCWithInv.
	InvalidatedRKey uint32
	QPNum           uint32  // the local QP the request belonged to
	SrcQP           uint32  // the sending QP, for UD receives
	Flags           WCFlags // rdma.WCWithGRH, rdma.WCWithImm, rdma.WCWithInv, ...
	PKeyIndex       uint16  // for GSI QPs
	SLID            uint16  // the sender's LID (0 on RoCE)
	SL              uint8
	DLIDPathBits    uint8
}

// Err returns nil for a successful completion and a *WCError explaining
// the status otherwise (enum ibv_wc_status, ibv_poll_cq(3)).
func (wc WC) Err() error {
	if wc.Status == rdma.WCSuccess {
		return nil
	}
	return &WCError{WC: wc}
}

// WCError is a completion with an error status (ibv_poll_cq(3): any
// status but IBV_WC_SUCCESS). Once a request fails the
// QP is in the error state (RC) and every request still queued completes
// with WR_FLUSH_ERR.
type WCError struct {
	WC WC
}

// Error names the request, its QP, the status (with its verbs.h name
// and number) and what usually causes it.
func (e *WCError) Error() string {
	s := fmt.Sprintf("verbs: work request 0x%x on QP %d completed with %s (status %d", e.WC.WRID, e.WC.QPNum, e.WC.Status, int(e.WC.Status))
	if e.WC.VendorErr != 0 {
		s += fmt.Sprintf(", vendor_err 0x%x", e.WC.VendorErr)
	}
	s += ")"
	if h := e.WC.Status.Hint(); h != "" {
		s += ": " + h
	}
	return s
}
