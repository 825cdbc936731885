package rdma

import (
	"fmt"
	"strings"
)

// AttrHelp explains one ibv_qp_attr_mask bit to a learner: what the
// attribute is, which struct ibv_qp_attr fields carry it, and a typical
// value. The facts come from ibv_modify_qp(3), the IBTA spec's QP
// attributes as the kernel uses them (include/rdma/ib_verbs.h struct
// ib_qp_attr) and ibv_rc_pingpong's values (rdma-core
// libibverbs/examples/rc_pingpong.c).
type AttrHelp struct {
	Bit     QPAttrMask
	Name    string // IBV_QP_ without the prefix, e.g. "DEST_QPN"
	Fields  string // the ibv_qp_attr fields it sets, e.g. "dest_qp_num"
	What    string // what it is, in words
	Typical string // a typical value and where it comes from
}

// attrHelp is the teaching text for every mask bit, in ibv_modify_qp(3)
// order.
var attrHelp = []AttrHelp{
	{AttrState, "STATE", "qp_state", "the state to move the QP to; without it the modify stays in the current state and only changes attributes", "the next state of the walk: INIT, RTR, RTS"},
	{AttrCurState, "CUR_STATE", "cur_qp_state", "the state you assert the QP is in now; the driver believes it instead of its own record (allowed only from RTR, RTS, SQD and SQE)", "usually left out"},
	{AttrEnSQDAsyncNotify, "EN_SQD_ASYNC_NOTIFY", "en_sqd_async_notify", "ask for an IBV_EVENT_SQ_DRAINED async event when the send queue has drained (RTS→SQD)", "1 when you wait for the drain"},
	{AttrAccessFlags, "ACCESS_FLAGS", "qp_access_flags", "what a remote peer may do to memory through this QP: IBV_ACCESS_REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC (local writes need no flag here)", "REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC for RDMA; 0 (rc_pingpong) for sends only"},
	{AttrPKeyIndex, "PKEY_INDEX", "pkey_index", "index into the port's partition-key table; the P_Key goes in every packet and must match the peer's", "0 (the default partition; RoCE ports have one entry)"},
	{AttrPort, "PORT", "port_num", "the HCA port the QP sends and receives on, counted from 1", "1"},
	{AttrQKey, "QKEY", "qkey", "the Q_Key a UD QP accepts; senders put it in each datagram, and a mismatch silently drops it; values with bit 31 set are reserved for privileged QPs", "0x11111111 (ud_pingpong)"},
	{AttrAV, "AV", "ah_attr", "the address vector of the peer: on RoCE a GRH with the peer's GID (dgid), the local GID index (sgid_index) and hop_limit, with is_global=1; on InfiniBand its LID (dlid)", "is_global=1, dgid=<peer GID>, sgid_index=<local RoCE v2 GID>, hop_limit=1, port_num=1"},
	{AttrPathMTU, "PATH_MTU", "path_mtu", "the largest payload per packet on the path; both sides must agree, and it must fit the port's active MTU", "1024 (rc_pingpong); never above the port's active_mtu"},
	{AttrTimeout, "TIMEOUT", "timeout", "how long the sender waits for an ACK before retrying: 4.096 µs × 2^timeout; 0 waits forever; at most 31", "14 (about 67 ms, rc_pingpong)"},
	{AttrRetryCnt, "RETRY_CNT", "retry_cnt", "how many times the sender retries after an ACK timeout before failing with RETRY_EXC_ERR; 0..7", "7 (rc_pingpong)"},
	{AttrRNRRetry, "RNR_RETRY", "rnr_retry", "how many times the sender retries when the peer had no receive posted (RNR NAK) before RNR_RETRY_EXC_ERR; 0..7, and 7 means retry forever", "7 (rc_pingpong)"},
	{AttrRQPSN, "RQ_PSN", "rq_psn", "the packet sequence number this QP expects first: the peer's sq_psn; 24 bits", "the PSN the peer told you (rc_pingpong draws it at random)"},
	{AttrMaxQPRdAtomic, "MAX_QP_RD_ATOMIC", "max_rd_atomic", "how many RDMA reads and atomics this QP may have outstanding as the initiator; at most the device's max_qp_init_rd_atom", "1 (rc_pingpong)"},
	{AttrAltPath, "ALT_PATH", "alt_ah_attr, alt_port_num, alt_pkey_index, alt_timeout", "an alternate path for automatic path migration (APM); InfiniBand only, refused on RoCE", "left out"},
	{AttrMinRNRTimer, "MIN_RNR_TIMER", "min_rnr_timer", "how long this QP tells a sender to wait when no receive is posted (the RNR NAK delay code, 0..31; 12 is 0.64 ms)", "12 (rc_pingpong)"},
	{AttrSQPSN, "SQ_PSN", "sq_psn", "the packet sequence number this QP sends first; the peer sets it as its rq_psn; 24 bits", "your own PSN, the one you told the peer"},
	{AttrMaxDestRdAtomic, "MAX_DEST_RD_ATOMIC", "max_dest_rd_atomic", "how many RDMA reads and atomics from the peer this QP serves at once as the responder; at most the device's max_qp_rd_atom", "1 (rc_pingpong)"},
	{AttrPathMigState, "PATH_MIG_STATE", "path_mig_state", "the APM state machine: MIGRATED, REARM or ARMED; InfiniBand only", "left out"},
	{AttrCap, "CAP", "cap", "queue sizes; no transition accepts them (resize is not supported through modify): set them at ibv_create_qp", "left out"},
	{AttrDestQPN, "DEST_QPN", "dest_qp_num", "the QP number of the peer QP (its qp_num); 24 bits", "the number the peer told you"},
	{AttrRateLimit, "RATE_LIMIT", "rate_limit", "a packet pacing rate in kbps for RAW_PACKET QPs; needs ibv_modify_qp_rate_limit(3)", "left out"},
}

// HelpFor returns the explanation of one mask bit.
func HelpFor(bit QPAttrMask) (AttrHelp, bool) {
	for _, h := range attrHelp {
		if h.Bit == bit {
			return h, true
		}
	}
	return AttrHelp{}, false
}

// ExplainMask explains every bit of an attribute mask (ibv_modify_qp(3)
// enum ibv_qp_attr_mask), in order; unknown bits get an entry that says
// so.
func ExplainMask(m QPAttrMask) []AttrHelp {
	var out []AttrHelp
	for _, h := range attrHelp {
		if m&h.Bit != 0 {
			out = append(out, h)
			m &^= h.Bit
		}
	}
	// Bits libibverbs does not name: one entry each, so a learner who
	// typed a raw number sees which bits are not attributes.
	for b := QPAttrMask(1); m != 0 && b != 0; b <<= 1 {
		if m&b != 0 {
			out = append(out, AttrHelp{Bit: b, Name: fmt.Sprintf("0x%x", uint32(b)),
				What: "not an attribute libibverbs defines (bits 21-24 were SMAC/VID fields never exposed to user space)"})
			m &^= b
		}
	}
	return out
}

// StateHelp says what a QP state means, in one line (ibv_modify_qp(3),
// IBTA QP states).
func StateHelp(s QPState) string {
	if validState(s) || s == QPStateUnknown {
		return stateHelp[s]
	}
	return "not a QP state"
}

// stateHelp is StateHelp's text, indexed by state.
var stateHelp = [...]string{
	QPStateReset:   "RESET: just created or reset; no attributes, nothing can be posted",
	QPStateInit:    "INIT: bound to a port; receives can be posted, nothing is sent or received yet",
	QPStateRTR:     "RTR, ready to receive: knows its peer and accepts its packets; cannot send yet",
	QPStateRTS:     "RTS, ready to send: fully working",
	QPStateSQD:     "SQD, send queue drained: finishes sends in flight, starts no new ones; receives go on",
	QPStateSQE:     "SQE, send queue error: a UD or UC send failed; receives go on, sends wait for a move back to RTS",
	QPStateErr:     "ERR: broken; every posted work request completes with WR_FLUSH_ERR; only RESET leads out",
	QPStateUnknown: "UNKNOWN: the provider could not tell",
}

// maskWords returns the names of the bits, lower-case as the shell
// spells them, joined by ", ".
func maskWords(m QPAttrMask) string {
	return strings.ToLower(strings.Join(m.Names(), ", "))
}

// attrExample is how to add each attribute in the shell's words, with
// the value to use (ibv_rc_pingpong's where it has one).
var attrExample = map[QPAttrMask]string{
	AttrCurState:         "cur_state=<the state the QP is in>",
	AttrEnSQDAsyncNotify: "en_sqd_async_notify=1",
	AttrAccessFlags:      "access_flags=remote_write|remote_read|remote_atomic",
	AttrPKeyIndex:        "pkey_index=0",
	AttrPort:             "port=1",
	AttrQKey:             "qkey=0x11111111",
	AttrAV:               "dgid=<the peer's GID> sgid_index=<your RoCE v2 GID index> is_global=1 hop_limit=1",
	AttrPathMTU:          "path_mtu=1024",
	AttrTimeout:          "timeout=14",
	AttrRetryCnt:         "retry_cnt=7",
	AttrRNRRetry:         "rnr_retry=7",
	AttrRQPSN:            "rq_psn=<the peer's sq_psn>",
	AttrMaxQPRdAtomic:    "max_rd_atomic=1",
	AttrMinRNRTimer:      "min_rnr_timer=12",
	AttrSQPSN:            "sq_psn=<your PSN, the one you told the peer>",
	AttrMaxDestRdAtomic:  "max_dest_rd_atomic=1",
	AttrDestQPN:          "dest_qpn=<the peer QP's number>",
}

// fixAdd says how to add the attributes of a mask, one example each.
func fixAdd(m QPAttrMask) string {
	var parts []string
	for _, h := range ExplainMask(m) {
		if ex, ok := attrExample[h.Bit]; ok {
			parts = append(parts, ex)
		} else {
			parts = append(parts, strings.ToLower(h.Name)+"=...")
		}
	}
	return strings.Join(parts, " ")
}
