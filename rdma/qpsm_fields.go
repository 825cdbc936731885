package rdma

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// attrField is one settable field of struct ibv_qp_attr (ibv_modify_qp(3))
// by the name the shell and Step.Set use, with the mask bit that sends it.
type attrField struct {
	name string
	bit  QPAttrMask
	get  func(a *QPAttr) string
	set  func(a *QPAttr, v string) error
	// uint reads an integer field's value; nil for other fields.
	uint func(a *QPAttr) uint64
}

// uintField makes a field of an unsigned integer type of the given bit
// width; values parse as decimal or 0x-prefixed hex.
func uintField[T ~uint8 | ~uint16 | ~uint32](name string, bit QPAttrMask, width int, ptr func(*QPAttr) *T) attrField {
	return uintFieldFmt(name, bit, width, ptr, "%d")
}

// hexField is a uintField printed in hex, as rc_pingpong prints QPNs,
// PSNs and Q_Keys.
func hexField[T ~uint8 | ~uint16 | ~uint32](name string, bit QPAttrMask, width int, ptr func(*QPAttr) *T) attrField {
	return uintFieldFmt(name, bit, width, ptr, "%#06x")
}

// uintFieldFmt is uintField with a print format; the parse is the same
// for both (ParseUint with base 0 reads 0x-prefixed hex too).
func uintFieldFmt[T ~uint8 | ~uint16 | ~uint32](name string, bit QPAttrMask, width int, ptr func(*QPAttr) *T, format string) attrField {
	return attrField{
		name: name, bit: bit,
		uint: func(a *QPAttr) uint64 { return uint64(*ptr(a)) },
		get:  func(a *QPAttr) string { return fmt.Sprintf(format, uint64(*ptr(a))) },
		set: func(a *QPAttr, v string) error {
			n, err := strconv.ParseUint(v, 0, width)
			if err != nil {
				return fmt.Errorf("%s wants a number from 0 to %d, not %q", name, uint64(1)<<width-1, v)
			}
			*ptr(a) = T(n)
			return nil
		},
	}
}

// boolField makes a flag field; values parse as strconv.ParseBool does
// (1, 0, true, false).
func boolField(name string, bit QPAttrMask, ptr func(*QPAttr) *bool) attrField {
	return attrField{
		name: name, bit: bit,
		get: func(a *QPAttr) string { return strconv.FormatBool(*ptr(a)) },
		set: func(a *QPAttr, v string) error {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return fmt.Errorf("%s wants 1 or 0 (true or false), not %q", name, v)
			}
			*ptr(a) = b
			return nil
		},
	}
}

// stateField makes a field holding a QP state, read by name.
func stateField(name string, bit QPAttrMask, ptr func(*QPAttr) *QPState) attrField {
	return attrField{
		name: name, bit: bit,
		get: func(a *QPAttr) string { return ptr(a).String() },
		set: func(a *QPAttr, v string) error {
			s, ok := ParseQPState(v)
			if !ok {
				return fmt.Errorf("%s wants a state (reset, init, rtr, rts, sqd, sqe, err), not %q", name, v)
			}
			*ptr(a) = s
			return nil
		},
	}
}

// gidField makes a GID field of an address vector (AttrAV).
func gidField(name string, ptr func(*QPAttr) *GID) attrField {
	return attrField{
		name: name, bit: AttrAV,
		get: func(a *QPAttr) string { return ptr(a).String() },
		set: func(a *QPAttr, v string) error {
			g, err := parseGID(v)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			*ptr(a) = g
			return nil
		},
	}
}

// qpAttrFields are the fields Step.Set accepts. The address-vector fields
// (dgid, sgid_index, ...) all belong to AttrAV, the alt_* ones to
// AttrAltPath, the queue sizes to AttrCap.
var qpAttrFields = []attrField{
	stateField("cur_state", AttrCurState, func(a *QPAttr) *QPState { return &a.CurState }),
	boolField("en_sqd_async_notify", AttrEnSQDAsyncNotify, func(a *QPAttr) *bool { return &a.EnSQDAsyncNotify }),
	{name: "access_flags", bit: AttrAccessFlags,
		get: func(a *QPAttr) string { return a.AccessFlags.String() },
		set: func(a *QPAttr, v string) error {
			f, err := parseAccessList(v)
			a.AccessFlags = f
			return err
		}},
	uintField("pkey_index", AttrPKeyIndex, 16, func(a *QPAttr) *uint16 { return &a.PKeyIndex }),
	uintField("port", AttrPort, 8, func(a *QPAttr) *uint8 { return &a.Port }),
	hexField("qkey", AttrQKey, 32, func(a *QPAttr) *uint32 { return &a.QKey }),
	gidField("dgid", func(a *QPAttr) *GID { return &a.AH.GRH.DGID }),
	uintField("sgid_index", AttrAV, 8, func(a *QPAttr) *uint8 { return &a.AH.GRH.SGIDIndex }),
	uintField("hop_limit", AttrAV, 8, func(a *QPAttr) *uint8 { return &a.AH.GRH.HopLimit }),
	uintField("traffic_class", AttrAV, 8, func(a *QPAttr) *uint8 { return &a.AH.GRH.TrafficClass }),
	uintField("flow_label", AttrAV, 20, func(a *QPAttr) *uint32 { return &a.AH.GRH.FlowLabel }),
	boolField("is_global", AttrAV, func(a *QPAttr) *bool { return &a.AH.IsGlobal }),
	uintField("dlid", AttrAV, 16, func(a *QPAttr) *uint16 { return &a.AH.DLID }),
	uintField("sl", AttrAV, 4, func(a *QPAttr) *uint8 { return &a.AH.SL }),
	uintField("src_path_bits", AttrAV, 7, func(a *QPAttr) *uint8 { return &a.AH.SrcPathBits }),
	uintField("static_rate", AttrAV, 8, func(a *QPAttr) *uint8 { return &a.AH.StaticRate }),
	uintField("ah_port", AttrAV, 8, func(a *QPAttr) *uint8 { return &a.AH.PortNum }),
	{name: "path_mtu", bit: AttrPathMTU,
		get: func(a *QPAttr) string { return a.PathMTU.String() },
		set: func(a *QPAttr, v string) error {
			n, err := strconv.Atoi(v)
			m, ok := MTUFromBytes(n)
			if err != nil || !ok {
				return fmt.Errorf("path_mtu wants 256, 512, 1024, 2048 or 4096 (bytes), not %q", v)
			}
			a.PathMTU = m
			return nil
		}},
	uintField("timeout", AttrTimeout, 8, func(a *QPAttr) *uint8 { return &a.Timeout }),
	uintField("retry_cnt", AttrRetryCnt, 8, func(a *QPAttr) *uint8 { return &a.RetryCnt }),
	uintField("rnr_retry", AttrRNRRetry, 8, func(a *QPAttr) *uint8 { return &a.RNRRetry }),
	hexField("rq_psn", AttrRQPSN, 32, func(a *QPAttr) *uint32 { return &a.RQPSN }),
	uintField("max_rd_atomic", AttrMaxQPRdAtomic, 8, func(a *QPAttr) *uint8 { return &a.MaxRdAtomic }),
	uintField("alt_port", AttrAltPath, 8, func(a *QPAttr) *uint8 { return &a.AltPort }),
	uintField("alt_timeout", AttrAltPath, 8, func(a *QPAttr) *uint8 { return &a.AltTimeout }),
	uintField("alt_pkey_index", AttrAltPath, 16, func(a *QPAttr) *uint16 { return &a.AltPKeyIndex }),
	gidField("alt_dgid", func(a *QPAttr) *GID { return &a.AltAH.GRH.DGID }),
	uintField("min_rnr_timer", AttrMinRNRTimer, 8, func(a *QPAttr) *uint8 { return &a.MinRNRTimer }),
	hexField("sq_psn", AttrSQPSN, 32, func(a *QPAttr) *uint32 { return &a.SQPSN }),
	uintField("max_dest_rd_atomic", AttrMaxDestRdAtomic, 8, func(a *QPAttr) *uint8 { return &a.MaxDestRdAtomic }),
	{name: "path_mig_state", bit: AttrPathMigState,
		get: func(a *QPAttr) string { return a.PathMigState.String() },
		set: func(a *QPAttr, v string) error {
			for m := MigStateMigrated; m <= MigStateArmed; m++ {
				if strings.EqualFold(v, m.String()) {
					a.PathMigState = m
					return nil
				}
			}
			return fmt.Errorf("path_mig_state wants migrated, rearm or armed, not %q", v)
		}},
	uintField("max_send_wr", AttrCap, 32, func(a *QPAttr) *uint32 { return &a.Cap.MaxSendWR }),
	uintField("max_recv_wr", AttrCap, 32, func(a *QPAttr) *uint32 { return &a.Cap.MaxRecvWR }),
	hexField("dest_qpn", AttrDestQPN, 32, func(a *QPAttr) *uint32 { return &a.DestQPN }),
	uintField("rate_limit", AttrRateLimit, 32, func(a *QPAttr) *uint32 { return &a.RateLimit }),
}

// fieldAliases are other spellings learners use (ibv_qp_attr field names
// where they differ from the shell's, the seed's port_num).
var fieldAliases = map[string]string{
	"qp_access_flags": "access_flags", "access": "access_flags", "port_num": "port",
	"dest_qp_num": "dest_qpn", "mtu": "path_mtu", "gid": "dgid", "gid_index": "sgid_index",
	"alt_port_num": "alt_port", "state": "", "qp_state": "",
}

// lookupField finds a settable field by name or alias (case-insensitive).
func lookupField(name string) (attrField, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := fieldAliases[n]; ok {
		if a == "" {
			return attrField{}, fmt.Errorf("the state is not an attribute to set: name the target state of the step instead")
		}
		n = a
	}
	for _, f := range qpAttrFields {
		if f.name == n {
			return f, nil
		}
	}
	return attrField{}, fmt.Errorf("no QP attribute is called %q; known: %s", name, strings.Join(FieldNames(), ", "))
}

// FieldNames lists the attribute names Step.Set accepts, in
// ibv_modify_qp(3) order.
func FieldNames() []string {
	out := make([]string, len(qpAttrFields))
	for i, f := range qpAttrFields {
		out[i] = f.name
	}
	return out
}

// FieldBit is the mask bit that carries the named ibv_qp_attr field
// (ibv_modify_qp(3)): "dgid" and "sgid_index" are AttrAV, "dest_qpn" is
// AttrDestQPN.
func FieldBit(name string) (QPAttrMask, error) {
	f, err := lookupField(name)
	return f.bit, err
}

// UintField is the mask bit and the reader of a named integer field of
// struct ibv_qp_attr (ibv_modify_qp(3)), by the names SetAttrField takes
// (ibv_qp_attr's spellings too: port_num, dest_qp_num, alt_port_num); ok
// is false for a name that is no integer field (a state, a GID, the MTU,
// flags). verbscope trace reads a traced modify's members through it.
func UintField(name string) (bit QPAttrMask, get func(a *QPAttr) uint64, ok bool) {
	f, err := lookupField(name)
	if err != nil || f.uint == nil {
		return 0, nil, false
	}
	return f.bit, f.uint, true
}

// parseAccessList reads access flags as names joined by | or , (e.g.
// "remote_write|remote_read"), or a number; "0" and "none" are no flags.
func parseAccessList(s string) (AccessFlags, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseUint(s, 0, 32); err == nil {
		return AccessFlags(n), nil
	}
	if strings.EqualFold(s, "none") {
		return 0, nil
	}
	var f AccessFlags
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' || r == '+' }) {
		b, ok := ParseAccessFlag(strings.TrimSpace(part))
		if !ok {
			return f, fmt.Errorf("%q is not an access flag (local_write, remote_write, remote_read, remote_atomic, mw_bind, ...)", part)
		}
		f |= b
	}
	return f, nil
}

// parseGID reads a GID as ibv_devinfo prints it (IPv6 notation, or
// ::ffff:a.b.c.d) or as a plain IPv4 address, which becomes its
// IPv4-mapped RoCE v2 GID.
func parseGID(s string) (GID, error) {
	ip := net.ParseIP(strings.TrimSpace(s))
	if ip == nil {
		return GID{}, fmt.Errorf("%q is not a GID: write it as ibv_devinfo shows it (fe80::1 or ::ffff:10.0.0.1) or as an IPv4 address", s)
	}
	var g GID
	copy(g[:], ip.To16())
	return g, nil
}

// SetAttrField sets one named field of a QPAttr from text and adds the
// mask bit that carries it (ibv_modify_qp(3)): SetAttrField(&a, &m,
// "dest_qpn", "0x11") sets a.DestQPN and AttrDestQPN. Names are those of
// FieldNames, plus the ibv_qp_attr spellings (dest_qp_num, port_num,
// qp_access_flags). On error nothing changes.
func SetAttrField(a *QPAttr, mask *QPAttrMask, name, value string) error {
	f, err := lookupField(name)
	if err != nil {
		return err
	}
	// Set a copy first so that a failed parse leaves the attr as it
	// was: the shell may go on with it.
	tmp := *a
	if err := f.set(&tmp, strings.TrimSpace(value)); err != nil {
		return err
	}
	*a = tmp
	*mask |= f.bit
	return nil
}

// AttrFieldValue formats one named field of a QPAttr as SetAttrField
// reads it.
func AttrFieldValue(a *QPAttr, name string) (string, error) {
	f, err := lookupField(name)
	if err != nil {
		return "", err
	}
	return f.get(a), nil
}
