package rdma

import (
	"fmt"
	"slices"
)

// Peer is what the other side of a connection tells this one out of band:
// ibv_rc_pingpong's LID:QPN:PSN:GID exchange (rdma-core
// libibverbs/examples/rc_pingpong.c, pp_client_exch_dest).
type Peer struct {
	QPN uint32
	PSN uint32
	LID uint16
	GID GID
}

// ConnParams are the local facts and the peer's that a step's defaults
// need. Zero Port, MTU and QKey take ibv_rc_pingpong's (and
// ud_pingpong's) defaults; GIDIndex is used as given.
type ConnParams struct {
	// Port is the HCA port (rc_pingpong -i, default 1).
	Port uint8
	// GIDIndex is the local GID index for the GRH (rc_pingpong -g);
	// negative means no GRH (InfiniBand, addressed by LID). On RoCE it
	// must be the RoCE v2 GID of the interface's IP address.
	GIDIndex int
	// PSN is this QP's first send PSN (rc_pingpong: lrand48() & 0xffffff).
	PSN uint32
	// MTU is the path MTU (rc_pingpong -m, default 1024).
	MTU MTU
	// QKey is a UD QP's Q_Key (ud_pingpong: 0x11111111).
	QKey uint32
	Peer Peer
}

// Step is one modify with visible defaults: the attributes and mask a
// transition needs, each value with the reason it was chosen, ready to
// override attribute by attribute (Set) and to check (Check) before
// QP.Modify(&s.Attr, s.Mask).
type Step struct {
	From, To QPState
	Type     QPType
	Attr     QPAttr
	Mask     QPAttrMask
	values   []StepValue
}

// StepValue is one attribute value of a Step and why it has that value.
type StepValue struct {
	Name  string // the field name Set takes, e.g. "dest_qpn"
	Bit   QPAttrMask
	Value string
	Why   string
	// Overridden is true for values the caller set.
	Overridden bool
}

// defaultValue sets the default of one required attribute. The values are
// ibv_rc_pingpong's (RC), uc_pingpong's and ud_pingpong's (rdma-core
// libibverbs/examples/), except where noted.
type defaultValue struct {
	bit   QPAttrMask
	apply func(s *Step, p ConnParams)
}

var defaultValues = []defaultValue{
	{AttrPKeyIndex, func(s *Step, p ConnParams) {
		s.Attr.PKeyIndex = 0
		s.record("pkey_index", "the port's default partition (rc_pingpong)")
	}},
	{AttrPort, func(s *Step, p ConnParams) {
		s.Attr.Port = p.Port
		s.record("port", "the port the QP uses (rc_pingpong -i, default 1)")
	}},
	{AttrAccessFlags, func(s *Step, p ConnParams) {
		s.Attr.AccessFlags = AccessRemoteWrite | AccessRemoteRead | AccessRemoteAtomic
		why := "lets the peer write, read and run atomics on this side's MRs that allow it; rc_pingpong uses 0 because it only sends"
		if s.Type == QPTypeUC {
			s.Attr.AccessFlags = AccessRemoteWrite
			why = "lets the peer RDMA-write into this side's MRs that allow it (UC has no reads or atomics); uc_pingpong uses 0 because it only sends"
		}
		s.record("access_flags", why)
	}},
	{AttrQKey, func(s *Step, p ConnParams) {
		s.Attr.QKey = p.QKey
		s.record("qkey", "senders put the same Q_Key in every datagram (ud_pingpong's 0x11111111)")
	}},
	{AttrAV, func(s *Step, p ConnParams) {
		s.Attr.AH = AHAttr{PortNum: p.Port, DLID: p.Peer.LID}
		if p.GIDIndex < 0 {
			s.record("dlid", peerWhy(p.Peer.LID != 0, "the peer's LID (InfiniBand addressing, no GRH)", "dlid"))
			s.record("ah_port", "the AV's port, the QP's own")
			return
		}
		s.Attr.AH.IsGlobal = true
		s.Attr.AH.GRH = GlobalRoute{DGID: p.Peer.GID, SGIDIndex: uint8(p.GIDIndex), HopLimit: 1}
		s.record("is_global", "a GRH is needed on RoCE (rc_pingpong sets it when the peer sent a GID)")
		s.record("dgid", peerWhy(!p.Peer.GID.IsZero(), "the peer's GID", "dgid"))
		s.record("sgid_index", "your GID index (rc_pingpong -g); on RoCE the RoCE v2 GID of your IP address")
		s.record("hop_limit", "rc_pingpong's 1; for connected RoCE QPs the kernel replaces it with the route's hop limit")
		s.record("ah_port", "the AV's port, the QP's own")
	}},
	{AttrPathMTU, func(s *Step, p ConnParams) {
		s.Attr.PathMTU = p.MTU
		s.record("path_mtu", "rc_pingpong's default 1024; both sides must agree and stay within the port's active MTU")
	}},
	{AttrDestQPN, func(s *Step, p ConnParams) {
		s.Attr.DestQPN = p.Peer.QPN
		s.record("dest_qpn", peerWhy(p.Peer.QPN != 0, "the peer QP's number", "dest_qpn"))
	}},
	{AttrRQPSN, func(s *Step, p ConnParams) {
		s.Attr.RQPSN = p.Peer.PSN
		s.record("rq_psn", "the peer's send PSN, as it told you")
	}},
	{AttrMaxDestRdAtomic, func(s *Step, p ConnParams) {
		s.Attr.MaxDestRdAtomic = 1
		s.record("max_dest_rd_atomic", "serve one RDMA read or atomic from the peer at a time (rc_pingpong)")
	}},
	{AttrMinRNRTimer, func(s *Step, p ConnParams) {
		s.Attr.MinRNRTimer = 12
		s.record("min_rnr_timer", "ask a sender to wait 0.64 ms when no receive is posted (rc_pingpong)")
	}},
	{AttrTimeout, func(s *Step, p ConnParams) {
		s.Attr.Timeout = 14
		s.record("timeout", "wait 4.096 µs × 2^14 ≈ 67 ms for an ACK before retrying (rc_pingpong)")
	}},
	{AttrRetryCnt, func(s *Step, p ConnParams) {
		s.Attr.RetryCnt = 7
		s.record("retry_cnt", "retry a lost packet 7 times before RETRY_EXC_ERR (rc_pingpong)")
	}},
	{AttrRNRRetry, func(s *Step, p ConnParams) {
		s.Attr.RNRRetry = 7
		s.record("rnr_retry", "7 retries forever while the peer has no receive posted (rc_pingpong)")
	}},
	{AttrSQPSN, func(s *Step, p ConnParams) {
		s.Attr.SQPSN = p.PSN
		s.record("sq_psn", "your own first PSN, the one you told the peer")
	}},
	{AttrMaxQPRdAtomic, func(s *Step, p ConnParams) {
		s.Attr.MaxRdAtomic = 1
		s.record("max_rd_atomic", "one RDMA read or atomic outstanding at a time (rc_pingpong)")
	}},
}

// peerWhy says where a peer value comes from, or that it is missing.
func peerWhy(given bool, what, field string) string {
	if given {
		return what
	}
	return what + ": none given yet, set " + field + "=..."
}

// DefaultStep is the usual next step (Next) for a QP in state from, with
// defaults for every attribute it requires.
func DefaultStep(from QPState, typ QPType, p ConnParams) (Step, error) {
	to, ok := Next(from, typ)
	if !ok {
		if from == QPStateRTS {
			return Step{}, fmt.Errorf("verbs: %s QP in RTS is ready: post work; SQD pauses sending, ERR flushes, RESET starts over", withArticle(typ))
		}
		return Step{}, fmt.Errorf("verbs: no usual next step for %s QP in %s", withArticle(typ), from)
	}
	return DefaultsFor(from, to, typ, p)
}

// DefaultsFor fills a Step for from→to with defaults for every attribute
// the kernel requires there (qp_state_table) and nothing else: the
// minimal modify, as the pingpong examples do it. It fails for a
// transition the kernel does not have.
func DefaultsFor(from, to QPState, typ QPType, p ConnParams) (Step, error) {
	r := LookupTransition(from, to, typ)
	if !r.Valid || !TableHasType(typ) {
		return Step{}, fmt.Errorf("verbs: %s→%s is not a transition for %s QP", from, to, withArticle(typ))
	}
	if p.Port == 0 {
		p.Port = 1
	}
	if p.MTU == 0 {
		p.MTU = MTU1024
	}
	if p.QKey == 0 {
		p.QKey = 0x11111111
	}
	// Only the required attributes: an optional one the learner did not
	// ask for would hide what the step really needs.
	s := Step{From: from, To: to, Type: typ, Mask: AttrState | r.Required}
	s.Attr.State = to
	for _, d := range defaultValues {
		if r.Required&d.bit != 0 {
			d.apply(&s, p)
		}
	}
	return s, nil
}

// record notes a defaulted field and why it has its value.
func (s *Step) record(name, why string) {
	s.values = append(s.values, StepValue{Name: name, Why: why})
}

// Values lists the step's attribute values with their reasons, defaults
// first in ibv_modify_qp(3) order, then the caller's overrides.
func (s *Step) Values() []StepValue {
	// Values are read from Attr now, so they show overrides made through
	// Attr directly too; fields whose bit was cleared are left out.
	out := make([]StepValue, 0, len(s.values))
	for _, v := range s.values {
		f, err := lookupField(v.Name)
		if err != nil || s.Mask&f.bit == 0 {
			continue
		}
		v.Bit, v.Value = f.bit, f.get(&s.Attr)
		out = append(out, v)
	}
	return out
}

// Set overrides one attribute by name (FieldNames) with a value in text,
// adding its mask bit: s.Set("dest_qpn", "17"), s.Set("path_mtu",
// "2048"). The step may become one the kernel refuses; Check says.
func (s *Step) Set(name, value string) error {
	f, err := lookupField(name)
	if err != nil {
		return fmt.Errorf("verbs: %w", err)
	}
	if err := SetAttrField(&s.Attr, &s.Mask, f.name, value); err != nil {
		return fmt.Errorf("verbs: %w", err)
	}
	// The override replaces the default's reason; it moves to the end
	// so the listing shows the learner's changes last.
	s.values = slices.DeleteFunc(s.values, func(v StepValue) bool { return v.Name == f.name })
	s.values = append(s.values, StepValue{Name: f.name, Why: "set by you", Overridden: true})
	return nil
}

// Clear removes an attribute's mask bit (every field it carries), e.g. to
// see what the kernel says without it.
func (s *Step) Clear(name string) error {
	bit, err := FieldBit(name)
	if err != nil {
		if b, ok := ParseQPAttrMaskBit(name); ok && b != AttrState {
			bit, err = b, nil
		}
	}
	if err != nil {
		return fmt.Errorf("verbs: %w", err)
	}
	s.Mask &^= bit
	return nil
}

// Check runs Check on the step as it stands.
func (s *Step) Check(env *CheckEnv) Verdict {
	return Check(s.From, s.To, s.Type, s.Mask, &s.Attr, env)
}
