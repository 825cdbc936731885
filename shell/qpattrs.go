package shell

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

// The attributes `modify`, `next` and `ah` take are verbs' own field
// names (rdma.FieldNames: dest_qpn, path_mtu, dgid, sgid_index, …), so the
// shell, the checker and the defaults speak one language. The shell adds
// one thing: where a QP number is wanted, a QP of the session may be
// named (dest_qpn=qp2).

// avFieldHelp explains the address-vector fields, which share the AV bit.
var avFieldHelp = map[string]string{
	"dgid":          "the peer's GID (or its IPv4 address): RoCE addresses by GID",
	"sgid_index":    "which of our GIDs to send from (`show ctx1` lists them)",
	"hop_limit":     "IP TTL of the GRH (1 is enough on one subnet)",
	"traffic_class": "GRH traffic class (DSCP/ECN bits)",
	"flow_label":    "GRH flow label",
	"is_global":     "1: the AV carries a GRH (required on RoCE)",
	"dlid":          "the peer's LID (InfiniBand only; 0 on RoCE)",
	"sl":            "service level (0-15)",
	"src_path_bits": "LMC path bits (InfiniBand)",
	"static_rate":   "inter-packet rate limit code",
	"ah_port":       "port of the address vector (the QP's port)",
	"max_send_wr":   "not changeable by modify: set at `qp`",
	"max_recv_wr":   "not changeable by modify: set at `qp`",
}

// fieldHelp is the one-line help of a field for completion and `help`.
func fieldHelp(name string) string {
	if h, ok := avFieldHelp[name]; ok {
		return h
	}
	if strings.HasPrefix(name, "alt_") {
		return "alternate path (APM, InfiniBand only; refused on RoCE)"
	}
	bit, err := rdma.FieldBit(name)
	if err != nil {
		return ""
	}
	if h, ok := rdma.HelpFor(bit); ok {
		return h.What
	}
	return ""
}

// fieldValues suggests values for the fields where a short list helps.
func fieldValues(name string) func(*Shell) []Suggestion {
	switch name {
	case "path_mtu":
		return enumValues("1024", "rxe's usual active MTU", "256", "", "512", "", "2048", "", "4096", "")
	case "access_flags":
		return enumValues("remote_write", "peer may RDMA-write our MRs", "remote_read", "peer may RDMA-read",
			"remote_write,remote_read,remote_atomic", "everything", "0", "receives only")
	case "dest_qpn":
		return namesOf(rdma.KindQP)
	case "cur_state":
		return enumValues("rtr", "", "rts", "", "sqd", "", "sqe", "")
	}
	return nil
}

// attrKeys are the modify attributes as completion keys.
func attrKeys(names []string) []keySpec {
	out := make([]keySpec, 0, len(names))
	for _, n := range names {
		out = append(out, keySpec{name: n, help: fieldHelp(n), values: fieldValues(n)})
	}
	return out
}

// setAttr sets one named attribute, resolving session QP names given as
// QP numbers.
func (s *Shell) setAttr(attr *verbs.QPAttr, mask *verbs.QPAttrMask, name, value string) error {
	if name == "dest_qpn" || name == "dest_qp_num" {
		if e := s.objs.byName[value]; e != nil && e.kind == rdma.KindQP {
			value = strconv.FormatUint(uint64(e.qp.Num()), 10)
		}
	}
	if err := rdma.SetAttrField(attr, mask, name, value); err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "no QP attribute") {
			msg = fmt.Sprintf("no QP attribute is called %q%s", name, suggest(name, rdma.FieldNames()))
		}
		return &Error{What: msg, Fix: "`help modify` lists the attributes; `explain NAME` says what one means"}
	}
	return nil
}

// applyAttrs reads every attribute on the line into attr and returns the
// mask they make; skip names keys the caller handles itself.
func (s *Shell) applyAttrs(a *args, attr *verbs.QPAttr, skip ...string) (verbs.QPAttrMask, error) {
	var mask verbs.QPAttrMask
	for _, k := range a.keys {
		if contains(skip, k) {
			continue
		}
		v, _ := a.str(k)
		if err := s.setAttr(attr, &mask, k, v); err != nil {
			return 0, err
		}
	}
	return mask, nil
}

// parseAccess reads "remote_write,remote_read" (or 0) as access flags, for
// MRs: the same spelling as a QP's access_flags.
func parseAccess(v string) (verbs.AccessFlags, error) {
	var a verbs.QPAttr
	var m verbs.QPAttrMask
	if err := rdma.SetAttrField(&a, &m, "access_flags", v); err != nil {
		return 0, err
	}
	return a.AccessFlags, nil
}
