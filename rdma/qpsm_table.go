package rdma

import "slices"

// The QP state machine as data. Every fact in this file is transcribed
// from Linux drivers/infiniband/core/verbs.c: the static qp_state_table
// (valid, req_param[type], opt_param[type] for each pair of states) and
// ib_modify_qp_is_ok(), read in Debian's linux-source-6.1 6.1.192-3, the
// kernel the lab boots. Every verbs driver that validates transitions
// (rxe_qp_chk_attr, mlx4, mlx5, hns, rdmavt) calls ib_modify_qp_is_ok, so
// this table is what decides EINVAL for a bad state or mask.

// byType is one req_param or opt_param row of qp_state_table: an
// attribute mask per QP type. Types that are absent have no attributes.
type byType map[QPType]QPAttrMask

// qpTransition is one valid cell of qp_state_table. Cells that are not
// listed are invalid transitions.
type qpTransition struct {
	from, to QPState
	req, opt byType
	// note is a teaching remark about the step (not kernel data).
	note string
}

// Attribute groups that recur in the table, named for readability.
const (
	pkeyPortAccess = AttrPKeyIndex | AttrPort | AttrAccessFlags
	pkeyPortQKey   = AttrPKeyIndex | AttrPort | AttrQKey
	pkeyQKey       = AttrPKeyIndex | AttrQKey
	rtrConnected   = AttrAV | AttrPathMTU | AttrDestQPN | AttrRQPSN
	rtrResponder   = rtrConnected | AttrMaxDestRdAtomic | AttrMinRNRTimer
	rtsRequester   = AttrTimeout | AttrRetryCnt | AttrRNRRetry | AttrSQPSN | AttrMaxQPRdAtomic
	rtrOptional    = AttrAltPath | AttrAccessFlags | AttrPKeyIndex
	rtsUC          = AttrCurState | AttrAltPath | AttrAccessFlags | AttrPathMigState
	rtsRC          = rtsUC | AttrMinRNRTimer
	curQKey        = AttrCurState | AttrQKey
)

// qpStateTable is qp_state_table of drivers/infiniband/core/verbs.c
// (Linux 6.1), cell by cell.
var qpStateTable = []qpTransition{
	{from: QPStateReset, to: QPStateReset, note: "a QP in RESET can be reset again; nothing changes"},
	{from: QPStateReset, to: QPStateInit,
		req: byType{
			QPTypeUD: pkeyPortQKey, QPTypeRawPacket: AttrPort,
			QPTypeUC: pkeyPortAccess, QPTypeRC: pkeyPortAccess,
			QPTypeXRCSend: pkeyPortAccess, QPTypeXRCRecv: pkeyPortAccess,
			QPTypeSMI: pkeyQKey, QPTypeGSI: pkeyQKey,
		},
		note: "INIT binds the QP to a port and says what remote peers may do to this side's memory (or, for UD, which Q_Key it accepts); receives can be posted from INIT on"},

	{from: QPStateInit, to: QPStateReset, note: "back to RESET: the QP forgets its attributes and its queues are emptied"},
	{from: QPStateInit, to: QPStateErr, note: "ERR flushes every posted work request with WR_FLUSH_ERR"},
	{from: QPStateInit, to: QPStateInit,
		opt: byType{
			QPTypeUD: pkeyPortQKey, QPTypeUC: pkeyPortAccess, QPTypeRC: pkeyPortAccess,
			QPTypeXRCSend: pkeyPortAccess, QPTypeXRCRecv: pkeyPortAccess,
			QPTypeSMI: pkeyQKey, QPTypeGSI: pkeyQKey,
		},
		note: "INIT to INIT changes INIT's attributes in place"},
	{from: QPStateInit, to: QPStateRTR,
		req: byType{
			QPTypeUC: rtrConnected, QPTypeRC: rtrResponder,
			QPTypeXRCSend: rtrConnected, QPTypeXRCRecv: rtrResponder,
		},
		opt: byType{
			QPTypeUD: pkeyQKey, QPTypeUC: rtrOptional, QPTypeRC: rtrOptional,
			QPTypeXRCSend: rtrOptional, QPTypeXRCRecv: rtrOptional,
			QPTypeSMI: pkeyQKey, QPTypeGSI: pkeyQKey,
		},
		note: "RTR (ready to receive) is where a connected QP learns its peer: its address, its QP number and the PSN its packets will start with"},

	{from: QPStateRTR, to: QPStateReset, note: "back to RESET"},
	{from: QPStateRTR, to: QPStateErr, note: "ERR flushes every posted work request"},
	{from: QPStateRTR, to: QPStateRTS,
		req: byType{
			QPTypeUD: AttrSQPSN, QPTypeUC: AttrSQPSN,
			QPTypeRC: rtsRequester, QPTypeXRCSend: rtsRequester,
			QPTypeXRCRecv: AttrTimeout | AttrSQPSN,
			QPTypeSMI:     AttrSQPSN, QPTypeGSI: AttrSQPSN,
		},
		opt: byType{
			QPTypeUD: curQKey, QPTypeUC: rtsUC, QPTypeRC: rtsRC,
			QPTypeXRCSend: rtsUC, QPTypeXRCRecv: rtsRC,
			QPTypeSMI: curQKey, QPTypeGSI: curQKey,
			QPTypeRawPacket: AttrRateLimit,
		},
		note: "RTS (ready to send) sets up the sending side: the first PSN it sends and, for RC, how long to wait for an ACK and how often to retry"},

	{from: QPStateRTS, to: QPStateReset, note: "back to RESET"},
	{from: QPStateRTS, to: QPStateErr, note: "ERR flushes every posted work request"},
	{from: QPStateRTS, to: QPStateRTS,
		opt: byType{
			QPTypeUD: curQKey, QPTypeUC: rtsUC, QPTypeRC: rtsRC,
			QPTypeXRCSend: rtsUC, QPTypeXRCRecv: rtsRC,
			QPTypeSMI: curQKey, QPTypeGSI: curQKey,
			QPTypeRawPacket: AttrRateLimit,
		},
		note: "RTS to RTS changes a working QP's attributes in place"},
	{from: QPStateRTS, to: QPStateSQD,
		opt: byType{
			QPTypeUD: AttrEnSQDAsyncNotify, QPTypeUC: AttrEnSQDAsyncNotify, QPTypeRC: AttrEnSQDAsyncNotify,
			QPTypeXRCSend: AttrEnSQDAsyncNotify, QPTypeXRCRecv: AttrEnSQDAsyncNotify,
			QPTypeSMI: AttrEnSQDAsyncNotify, QPTypeGSI: AttrEnSQDAsyncNotify,
		},
		note: "SQD (send queue drained) stops taking new sends and finishes the ones in flight; the device reports SQ_DRAINED when it is done"},

	{from: QPStateSQD, to: QPStateReset, note: "back to RESET"},
	{from: QPStateSQD, to: QPStateErr, note: "ERR flushes every posted work request"},
	{from: QPStateSQD, to: QPStateRTS,
		opt: byType{
			QPTypeUD: curQKey, QPTypeUC: rtsUC, QPTypeRC: rtsRC,
			QPTypeXRCSend: rtsUC, QPTypeXRCRecv: rtsRC,
			QPTypeSMI: curQKey, QPTypeGSI: curQKey,
		},
		note: "SQD back to RTS resumes sending"},
	{from: QPStateSQD, to: QPStateSQD,
		opt: byType{
			QPTypeUD: pkeyQKey,
			QPTypeUC: AttrAV | AttrAltPath | AttrAccessFlags | AttrPKeyIndex | AttrPathMigState,
			QPTypeRC: AttrPort | AttrAV | AttrTimeout | AttrRetryCnt | AttrRNRRetry | AttrMaxQPRdAtomic |
				AttrMaxDestRdAtomic | AttrAltPath | AttrAccessFlags | AttrPKeyIndex | AttrMinRNRTimer | AttrPathMigState,
			QPTypeXRCSend: AttrPort | AttrAV | AttrTimeout | AttrRetryCnt | AttrRNRRetry | AttrMaxQPRdAtomic |
				AttrAltPath | AttrAccessFlags | AttrPKeyIndex | AttrPathMigState,
			QPTypeXRCRecv: AttrPort | AttrAV | AttrTimeout | AttrMaxDestRdAtomic | AttrAltPath |
				AttrAccessFlags | AttrPKeyIndex | AttrMinRNRTimer | AttrPathMigState,
			QPTypeSMI: pkeyQKey, QPTypeGSI: pkeyQKey,
		},
		note: "a drained QP may change its path and timing attributes in place, which RTS to RTS does not allow"},

	{from: QPStateSQE, to: QPStateReset, note: "back to RESET"},
	{from: QPStateSQE, to: QPStateErr, note: "ERR flushes every posted work request"},
	{from: QPStateSQE, to: QPStateRTS,
		opt: byType{
			QPTypeUD: curQKey, QPTypeUC: AttrCurState | AttrAccessFlags,
			QPTypeSMI: curQKey, QPTypeGSI: curQKey,
		},
		note: "SQE (send queue error) is entered by the device when a UD or UC send fails; moving back to RTS resumes sending"},

	{from: QPStateErr, to: QPStateReset, note: "RESET is the only way out of ERR: the QP must be set up again from the start"},
	{from: QPStateErr, to: QPStateErr, note: "ERR to ERR changes nothing"},
}

// curStateAllowedFrom are the states from which ib_modify_qp_is_ok
// accepts IB_QP_CUR_STATE in the mask (verbs.c, ib_modify_qp_is_ok).
var curStateAllowedFrom = []QPState{QPStateRTR, QPStateRTS, QPStateSQD, QPStateSQE}

// tableTypes are the QP types with a column in qp_state_table (the
// kernel's enum ib_qp_type below IB_QPT_MAX that the table fills in).
var tableTypes = []QPType{QPTypeSMI, QPTypeGSI, QPTypeRC, QPTypeUC, QPTypeUD, QPTypeRawPacket, QPTypeXRCSend, QPTypeXRCRecv}

// UserQPTypes are the QP types ibv_create_qp(3) can create and whose
// transitions the kernel's table governs; SMI and GSI (QP0/QP1) belong to
// the kernel's MAD layer.
var UserQPTypes = []QPType{QPTypeRC, QPTypeUC, QPTypeUD, QPTypeRawPacket, QPTypeXRCSend, QPTypeXRCRecv}

// QPStates are the states of qp_state_table, RESET to ERR.
var QPStates = []QPState{QPStateReset, QPStateInit, QPStateRTR, QPStateRTS, QPStateSQD, QPStateSQE, QPStateErr}

// qpCells indexes qpStateTable by [from][to]; nil means invalid.
var qpCells [QPStateErr + 1][QPStateErr + 1]*qpTransition

func init() {
	for i := range qpStateTable {
		t := &qpStateTable[i]
		qpCells[t.from][t.to] = t
	}
}

// validState is a state with a row in qp_state_table.
func validState(s QPState) bool { return s >= QPStateReset && s <= QPStateErr }

// TableHasType reports whether the kernel's qp_state_table has a column
// for the type (drivers/infiniband/core/verbs.c); for other types, such
// as DRIVER QPs, the driver decides alone and Check cannot predict it.
func TableHasType(t QPType) bool { return slices.Contains(tableTypes, t) }

// TransitionRule is one cell of the kernel's qp_state_table for one QP
// type (drivers/infiniband/core/verbs.c): whether from→to is a valid
// transition, and the attributes it requires and allows besides
// IBV_QP_STATE (ibv_modify_qp(3) lists the required ones).
type TransitionRule struct {
	From, To QPState
	Type     QPType
	// Valid is qp_state_table[from][to].valid.
	Valid bool
	// Required and Optional exclude AttrState, which every transition
	// allows.
	Required, Optional QPAttrMask
	// Note says what the step is for, in words.
	Note string
}

// Allowed is every attribute the transition accepts: required, optional
// and STATE.
func (r TransitionRule) Allowed() QPAttrMask { return r.Required | r.Optional | AttrState }

// LookupTransition returns the kernel's rule for from→to on a QP type
// (qp_state_table in drivers/infiniband/core/verbs.c). Invalid pairs and
// states outside RESET..ERR give Valid=false.
func LookupTransition(from, to QPState, typ QPType) TransitionRule {
	r := TransitionRule{From: from, To: to, Type: typ}
	if !validState(from) || !validState(to) {
		return r
	}
	c := qpCells[from][to]
	if c == nil {
		return r
	}
	r.Valid, r.Required, r.Optional, r.Note = true, c.req[typ], c.opt[typ], c.note
	return r
}

// ModifyIsOK is ib_modify_qp_is_ok() of drivers/infiniband/core/verbs.c,
// rule for rule: CUR_STATE only from RTR, RTS, SQD or SQE; the cell must
// be valid; every required attribute present; nothing outside required,
// optional and STATE. cur is the state the driver believes (with
// CUR_STATE, rxe and mlx5 believe attr.cur_qp_state); next is cur when
// the mask has no STATE. Types without a table column are never OK.
func ModifyIsOK(cur, next QPState, typ QPType, mask QPAttrMask) bool {
	if mask&AttrCurState != 0 && !slices.Contains(curStateAllowedFrom, cur) {
		return false
	}
	r := LookupTransition(cur, next, typ)
	if !r.Valid || !TableHasType(typ) {
		return false
	}
	return mask&r.Required == r.Required && mask&^r.Allowed() == 0
}

// LegalNext lists the states a QP of the type can be modified to from
// the given state (valid cells of qp_state_table), in state order,
// including the self-transition when valid. SQE is never listed: only
// the device enters it.
func LegalNext(from QPState, typ QPType) []QPState {
	var out []QPState
	for _, to := range QPStates {
		if LookupTransition(from, to, typ).Valid {
			out = append(out, to)
		}
	}
	return out
}

// PathTo is the shortest walk of valid transitions from one state to
// another (excluding from itself), e.g. RESET→RTS gives INIT, RTR, RTS.
// It returns nil when to cannot be reached by modify: SQE is entered
// only by the device.
func PathTo(from, to QPState, typ QPType) []QPState {
	if !validState(from) || !validState(to) || from == to {
		return nil
	}
	prev := map[QPState]QPState{from: from}
	queue := []QPState{from}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, n := range LegalNext(s, typ) {
			if _, seen := prev[n]; seen {
				continue
			}
			prev[n] = s
			if n == to {
				var path []QPState
				for x := to; x != from; x = prev[x] {
					path = append([]QPState{x}, path...)
				}
				return path
			}
			queue = append(queue, n)
		}
	}
	return nil
}

// Next is the usual next step of the bring-up walk for a QP in the given
// state (the order of ibv_rc_pingpong and every verbs tutorial):
// RESET→INIT→RTR→RTS, SQD and SQE back to RTS, ERR to RESET. RTS is where
// a QP works and has no usual next step, so ok is false there.
func Next(s QPState, typ QPType) (next QPState, ok bool) {
	if !TableHasType(typ) {
		return 0, false
	}
	switch s {
	case QPStateReset:
		return QPStateInit, true
	case QPStateInit:
		return QPStateRTR, true
	case QPStateRTR, QPStateSQD, QPStateSQE:
		return QPStateRTS, true
	case QPStateErr:
		return QPStateReset, true
	}
	return 0, false
}
