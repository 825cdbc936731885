package shell

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/verbs"
)

// qpKey is one attribute `modify` understands: the IBV_QP_* bit it sets
// and how to read its value into struct ibv_qp_attr.
type qpKey struct {
	name   string
	bit    verbs.QPAttrMask
	help   string
	values func(*Shell) []Suggestion
	set    func(s *Shell, q *verbs.QPAttr, v string) error
}

// num makes a setter for an unsigned field no larger than max.
func num[T ~uint8 | ~uint16 | ~uint32](field func(*verbs.QPAttr) *T, max uint64, what string) func(*Shell, *verbs.QPAttr, string) error {
	return func(_ *Shell, q *verbs.QPAttr, v string) error {
		n, err := parseUint(v)
		if err != nil {
			return fmt.Errorf("%s must be a number, not %q", what, v)
		}
		if n > max {
			return fmt.Errorf("%s is at most %d; %s is too large", what, max, v)
		}
		*field(q) = T(n)
		return nil
	}
}

// qpnOrName reads a QP number, or the name of a QP of this session, whose
// number is then used: dest_qpn=qp2.
func qpnOrName(field func(*verbs.QPAttr) *uint32) func(*Shell, *verbs.QPAttr, string) error {
	return func(s *Shell, q *verbs.QPAttr, v string) error {
		if e := s.objs[v]; e != nil && e.kind == kindQP {
			*field(q) = e.qp.Num()
			return nil
		}
		n, err := parseUint(v)
		if err != nil || n >= 1<<24 {
			return fmt.Errorf("dest_qpn is a 24-bit QP number or the name of a QP here (like qp2), not %q", v)
		}
		*field(q) = uint32(n)
		return nil
	}
}

var mtuValues = enumValues("1024", "rxe's usual active MTU", "256", "", "512", "", "2048", "", "4096", "")

// qpKeys are the attributes of ibv_modify_qp(3) by their shell names.
// AV fields (dgid, sgid_index, hop_limit, …) all set IBV_QP_AV.
var qpKeys = []qpKey{
	{name: "pkey_index", bit: verbs.AttrPKeyIndex, help: "P_Key table index (0 on RoCE)", set: num(func(q *verbs.QPAttr) *uint16 { return &q.PKeyIndex }, 0xffff, "pkey_index")},
	{name: "port", bit: verbs.AttrPort, help: "physical port, counted from 1", set: num(func(q *verbs.QPAttr) *uint8 { return &q.Port }, 255, "port")},
	{name: "access", bit: verbs.AttrAccessFlags, help: "what the peer may do to our memory: remote_write,remote_read,remote_atomic",
		values: enumValues("remote_write", "peer may RDMA-write our MRs", "remote_read", "peer may RDMA-read", "remote_write,remote_read,remote_atomic", "everything", "0", "receives only"),
		set: func(_ *Shell, q *verbs.QPAttr, v string) error {
			f, err := parseAccess(v)
			q.AccessFlags = f
			return err
		}},
	{name: "qkey", bit: verbs.AttrQKey, help: "UD: the Q_Key datagrams must carry", set: num(func(q *verbs.QPAttr) *uint32 { return &q.QKey }, 0xffffffff, "qkey")},
	{name: "path_mtu", bit: verbs.AttrPathMTU, help: "path MTU in bytes (256…4096), at most the port's active MTU", values: mtuValues,
		set: func(_ *Shell, q *verbs.QPAttr, v string) error {
			n, err := strconv.Atoi(v)
			m, ok := verbs.MTUFromBytes(n)
			if err != nil || !ok {
				return fmt.Errorf("path_mtu is 256, 512, 1024, 2048 or 4096 bytes, not %q", v)
			}
			q.PathMTU = m
			return nil
		}},
	{name: "dest_qpn", bit: verbs.AttrDestQPN, help: "the peer QP's number (or the name of a QP here)", values: namesOf(kindQP), set: qpnOrName(func(q *verbs.QPAttr) *uint32 { return &q.DestQPN })},
	{name: "rq_psn", bit: verbs.AttrRQPSN, help: "first packet sequence number we expect (the peer's sq_psn)", set: num(func(q *verbs.QPAttr) *uint32 { return &q.RQPSN }, 1<<24-1, "rq_psn")},
	{name: "sq_psn", bit: verbs.AttrSQPSN, help: "first packet sequence number we send", set: num(func(q *verbs.QPAttr) *uint32 { return &q.SQPSN }, 1<<24-1, "sq_psn")},
	{name: "max_dest_rd_atomic", bit: verbs.AttrMaxDestRdAtomic, help: "RDMA reads/atomics the peer may have outstanding at us", set: num(func(q *verbs.QPAttr) *uint8 { return &q.MaxDestRdAtomic }, 255, "max_dest_rd_atomic")},
	{name: "max_rd_atomic", bit: verbs.AttrMaxQPRdAtomic, help: "RDMA reads/atomics we may have outstanding", set: num(func(q *verbs.QPAttr) *uint8 { return &q.MaxRdAtomic }, 255, "max_rd_atomic")},
	{name: "min_rnr_timer", bit: verbs.AttrMinRNRTimer, help: "how long a peer waits after our receiver-not-ready NAK (code 0-31; 12 = 0.64 ms)", set: num(func(q *verbs.QPAttr) *uint8 { return &q.MinRNRTimer }, 31, "min_rnr_timer")},
	{name: "timeout", bit: verbs.AttrTimeout, help: "ACK timeout, 4.096 µs × 2^timeout (14 ≈ 67 ms; 0 = infinite)", set: num(func(q *verbs.QPAttr) *uint8 { return &q.Timeout }, 31, "timeout")},
	{name: "retry_cnt", bit: verbs.AttrRetryCnt, help: "retransmissions after a timeout before giving up (0-7)", set: num(func(q *verbs.QPAttr) *uint8 { return &q.RetryCnt }, 7, "retry_cnt")},
	{name: "rnr_retry", bit: verbs.AttrRNRRetry, help: "retries after receiver-not-ready (0-6; 7 = forever)", set: num(func(q *verbs.QPAttr) *uint8 { return &q.RNRRetry }, 7, "rnr_retry")},
	{name: "cur_state", bit: verbs.AttrCurState, help: "the state you believe the QP is in (only from RTR, RTS, SQD, SQE)",
		set: func(_ *Shell, q *verbs.QPAttr, v string) error {
			st, ok := verbs.ParseQPState(v)
			if !ok {
				return fmt.Errorf("cur_state is a QP state (reset, init, rtr, rts, sqd, sqe, err), not %q", v)
			}
			q.CurState = st
			return nil
		}},
	{name: "path_mig_state", bit: verbs.AttrPathMigState, help: "migrated, rearm or armed (APM; IB only)",
		set: func(_ *Shell, q *verbs.QPAttr, v string) error {
			for m := verbs.MigMigrated; m <= verbs.MigArmed; m++ {
				if strings.EqualFold(m.String(), v) {
					q.PathMigState = m
					return nil
				}
			}
			return fmt.Errorf("path_mig_state is migrated, rearm or armed, not %q", v)
		}},
	{name: "sqd_notify", bit: verbs.AttrEnSQDAsyncNotify, help: "1: raise SQ_DRAINED when RTS→SQD finishes draining",
		set: func(_ *Shell, q *verbs.QPAttr, v string) error {
			q.EnSQDAsyncNotify = v == "1" || strings.EqualFold(v, "true")
			return nil
		}},
	{name: "rate_limit", bit: verbs.AttrRateLimit, help: "packet pacing in kbps (raw packet QPs)", set: num(func(q *verbs.QPAttr) *uint32 { return &q.RateLimit }, 0xffffffff, "rate_limit")},
	// The address vector: who the peer is. On RoCE it must be global.
	{name: "dgid", bit: verbs.AttrAV, help: "the peer's GID (or its IPv4 address) — RoCE addresses by GID",
		set: func(_ *Shell, q *verbs.QPAttr, v string) error {
			ip := net.ParseIP(v)
			if ip == nil {
				return fmt.Errorf("dgid is a GID like fe80::1 or ::ffff:10.0.0.1, or an IPv4 address, not %q", v)
			}
			copy(q.AH.GRH.DGID[:], ip.To16())
			q.AH.IsGlobal = true
			return nil
		}},
	{name: "sgid_index", bit: verbs.AttrAV, help: "which of our GIDs to send from (`show ctx1` lists them)", set: num(func(q *verbs.QPAttr) *uint8 { return &q.AH.GRH.SGIDIndex }, 255, "sgid_index")},
	{name: "hop_limit", bit: verbs.AttrAV, help: "IP TTL of the GRH (1 is enough on one subnet)", set: num(func(q *verbs.QPAttr) *uint8 { return &q.AH.GRH.HopLimit }, 255, "hop_limit")},
	{name: "traffic_class", bit: verbs.AttrAV, help: "GRH traffic class (DSCP/ECN bits)", set: num(func(q *verbs.QPAttr) *uint8 { return &q.AH.GRH.TrafficClass }, 255, "traffic_class")},
	{name: "flow_label", bit: verbs.AttrAV, help: "GRH flow label", set: num(func(q *verbs.QPAttr) *uint32 { return &q.AH.GRH.FlowLabel }, 1<<20-1, "flow_label")},
	{name: "dlid", bit: verbs.AttrAV, help: "the peer's LID (InfiniBand only; 0 on RoCE)", set: num(func(q *verbs.QPAttr) *uint16 { return &q.AH.DLID }, 0xffff, "dlid")},
	{name: "sl", bit: verbs.AttrAV, help: "service level (0-15)", set: num(func(q *verbs.QPAttr) *uint8 { return &q.AH.SL }, 15, "sl")},
	{name: "is_global", bit: verbs.AttrAV, help: "1: the AV carries a GRH (required on RoCE)",
		set: func(_ *Shell, q *verbs.QPAttr, v string) error {
			q.AH.IsGlobal = v == "1" || strings.EqualFold(v, "true")
			return nil
		}},
	{name: "ah_port", bit: verbs.AttrAV, help: "port of the address vector (default: the QP's port, 1)", set: num(func(q *verbs.QPAttr) *uint8 { return &q.AH.PortNum }, 255, "ah_port")},
}

func findQPKey(name string) *qpKey {
	for i := range qpKeys {
		if qpKeys[i].name == name {
			return &qpKeys[i]
		}
	}
	return nil
}

func qpKeyNames() []string {
	var out []string
	for _, k := range qpKeys {
		out = append(out, k.name)
	}
	return out
}

// parseAccess reads "remote_write,remote_read" (or 0) as access flags.
func parseAccess(v string) (verbs.AccessFlags, error) {
	var f verbs.AccessFlags
	if v == "0" || v == "" || strings.EqualFold(v, "none") {
		return 0, nil
	}
	for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '|' || r == '+' }) {
		b, ok := verbs.ParseAccessFlag(w)
		if !ok {
			return 0, fmt.Errorf("%q is not an access flag: use local_write, remote_write, remote_read, remote_atomic, mw_bind (comma-separated)", w)
		}
		f |= b
	}
	return f, nil
}

// applyQPKeys reads the given attributes into attr and returns the mask
// they make. AV fields get the usual RoCE defaults: global, hop limit 1,
// the session's GID index, port 1.
func (s *Shell) applyQPKeys(a *args, attr *verbs.QPAttr) (verbs.QPAttrMask, error) {
	var mask verbs.QPAttrMask
	for _, k := range a.keys {
		qk := findQPKey(k)
		if qk == nil {
			continue // reported by unused()
		}
		v, _ := a.str(k)
		if err := qk.set(s, attr, v); err != nil {
			return 0, &Error{What: err.Error(), Fix: "`help modify` lists the attributes and their values"}
		}
		mask |= qk.bit
	}
	return mask, nil
}
