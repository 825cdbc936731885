package rdma

import (
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Stage is where on the way from ibv_modify_qp(3) to the driver a rule is
// enforced. Stages are listed in the order a modify passes them, so the
// first failing rule decides the errno the caller sees.
type Stage int

// Stages of a modify, in call order.
const (
	// StageLibrary is libibverbs and the provider (rdma-core
	// libibverbs/cmd.c ibv_cmd_modify_qp).
	StageLibrary Stage = iota + 1
	// StageUVerbs is the kernel's command handler
	// (drivers/infiniband/core/uverbs_cmd.c ib_uverbs_modify_qp, modify_qp).
	StageUVerbs
	// StageCore is the core's address handling before the driver
	// (drivers/infiniband/core/verbs.c _ib_modify_qp).
	StageCore
	// StageTable is ib_modify_qp_is_ok (drivers/infiniband/core/verbs.c),
	// which the driver calls first.
	StageTable
	// StageDriver is the driver's own checks after the table
	// (drivers/infiniband/sw/rxe/rxe_qp.c rxe_qp_chk_attr for rxe).
	StageDriver
	// StageLater is nothing in the modify path: the kernel accepts the
	// value, and the trouble shows later (in traffic) or on other
	// devices.
	StageLater
)

var stageNames = map[Stage]string{
	StageLibrary: "libibverbs", StageUVerbs: "uverbs", StageCore: "core",
	StageTable: "state table", StageDriver: "driver", StageLater: "later",
}

// String names the stage as explanations print it ("state table").
func (s Stage) String() string {
	if n, ok := stageNames[s]; ok {
		return n
	}
	return Unknown(int(s))
}

// Severity says whether a finding makes the modify fail.
type Severity int

// Severities, most serious first.
const (
	// SevError: the kernel (or libibverbs) refuses the modify with Errno.
	SevError Severity = iota
	// SevWarning: accepted, but wrong or meaningless; it hurts later.
	SevWarning
	// SevNote: something the learner should know about this modify.
	SevNote
)

// String names the severity (error, warning, note).
func (s Severity) String() string {
	return nameIn([]string{"error", "warning", "note"}, int(s))
}

// Finding is one rule's verdict on a modify.
type Finding struct {
	// Rule is a stable identifier, "<stage>.<name>", e.g. "table.missing".
	Rule     string
	Stage    Stage
	Severity Severity
	// Errno is what ibv_modify_qp returns when this rule fails (SevError
	// only).
	Errno syscall.Errno
	// Attrs are the attributes concerned.
	Attrs QPAttrMask
	// Problem says what is wrong, Why why it matters, Fix what to do.
	Problem, Why, Fix string
	// Source is the kernel or rdma-core file and function the rule
	// mirrors.
	Source string
}

// QKeyPrivilege says whether the process may set Q_Keys with bit 31 set
// (uverbs_cmd.c modify_qp: rdma_nl_get_privileged_qkey(), i.e.
// CAP_NET_RAW or `rdma system set privileged-qkey on`).
type QKeyPrivilege int

// Q_Key privilege: unknown, or known either way.
const (
	QKeyPrivilegeUnknown QKeyPrivilege = iota
	QKeyPrivileged
	QKeyUnprivileged
)

// CheckEnv is what Check knows beyond the modify call itself: the device,
// the QP's port and the QP. Every field may be left zero ("unknown"); the
// rules that need it are then skipped, and Check predicts less.
type CheckEnv struct {
	// Driver is the kernel driver ("rxe"); its own rules (StageDriver)
	// apply only when known. DriverForVendor maps vendor IDs to names.
	Driver string
	// Port is the QP's port (ibv_query_port(3)): link layer, MTUs, GID
	// and P_Key table lengths.
	Port *PortAttr
	// PortCount is the device's number of ports (phys_port_cnt).
	PortCount int
	// GIDs are the port's populated GID entries (ibv_query_gid_table(3));
	// nil means unknown, an empty non-nil slice means none.
	GIDs []GIDEntry
	// Device holds max_qp_rd_atom and friends (ibv_query_device(3)).
	Device *DeviceAttr
	// QPPort is the port the QP was bound to by RESET→INIT (the kernel's
	// qp->port); 0 when unknown or never bound.
	QPPort uint8
	// SQDraining is ibv_query_qp(3)'s sq_draining: an SQD QP still
	// finishing its sends.
	SQDraining bool
	// QKey says whether Q_Keys with bit 31 set are allowed.
	QKey QKeyPrivilege
	// Resolution is how the kernel will resolve the AV's DGID to a MAC
	// address, as an AVResolver found it before the modify; nil: not
	// looked up (the rule that needs it is skipped).
	Resolution *AVResolution
	// Kernel is the running kernel's release (uname -r, "6.12.117+deb13-amd64");
	// "" is taken as 6.1, the kernel the rules were read from. It matters
	// for rxe's modifies without STATE (rxeSkipsTable).
	Kernel string
}

// rxeSkipsTable reports whether rxe, on this kernel, changes a QP's
// attributes in place without consulting ib_modify_qp_is_ok when the
// mask has no STATE. Linux 6.1's rxe_qp_chk_attr checks every modify as
// cur→cur; 6.12's rxe_qp_from_attr calls __qp_chk_state (the table) only
// under IB_QP_STATE (drivers/infiniband/sw/rxe/rxe_qp.c, read in Debian's
// linux-source-6.12 6.12.117-1), so any such modify the earlier stages
// let through is accepted (RTR→RTR with nothing, RTS→RTS with AV or
// PATH_MTU: verbs' differential test found it in the lab first). Kernels
// between the two are taken to behave as 6.1, unchecked.
func rxeSkipsTable(release string) bool {
	major, minor, ok := KernelVersion(release)
	return ok && (major > 6 || major == 6 && minor >= 12)
}

// KernelVersion reads the major and minor numbers of a kernel release
// (uname -r: "6.12.117+deb13-amd64" is 6, 12).
func KernelVersion(release string) (major, minor int, ok bool) {
	a, rest, found := strings.Cut(release, ".")
	if !found {
		return 0, 0, false
	}
	b := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		b = rest[:i]
	}
	var err1, err2 error
	major, err1 = strconv.Atoi(a)
	minor, err2 = strconv.Atoi(b)
	return major, minor, err1 == nil && err2 == nil && major >= 0 && minor >= 0
}

// vendorDrivers maps ibv_query_device(3) vendor_id values of software
// devices to their kernel drivers (rxe_param.h RXE_VENDOR_ID, siw.h
// SIW_VENDOR_ID).
var vendorDrivers = map[uint32]string{0xffffff: "rxe", 0x626d74: "siw"}

// DriverForVendor names the kernel driver of a device by its vendor_id
// (ibv_query_device(3)), for the drivers whose rules Check knows; "" for
// others.
func DriverForVendor(vendorID uint32) string { return vendorDrivers[vendorID] }

// Verdict is Check's answer: what the kernel will say to a modify, and
// why, rule by rule.
type Verdict struct {
	// The modify as asked: the QP's state, the target, type and mask.
	From, To QPState
	Type     QPType
	Mask     QPAttrMask
	// TableFrom and TableTo are the states ib_modify_qp_is_ok is called
	// with: the driver takes From from cur_qp_state when the mask has
	// CUR_STATE, and To is TableFrom when the mask has no STATE.
	TableFrom, TableTo QPState
	// KernelMask is the mask the table sees after uverbs rewrote it
	// (AV outside INIT→RTR adds PORT; XRC types drop ignored bits).
	KernelMask QPAttrMask
	// Rule is the table cell for TableFrom→TableTo and Type.
	Rule TransitionRule
	// Missing are required attributes absent from KernelMask; Extra are
	// bits in KernelMask the transition does not accept.
	Missing, Extra QPAttrMask
	// Known is false when the type has no column in the kernel's table
	// (DRIVER QPs) or a state is out of range: Check cannot predict.
	Known bool
	// TableOK is ib_modify_qp_is_ok(TableFrom, TableTo, Type,
	// KernelMask): the state machine's own verdict.
	TableOK bool
	// Errno is the predicted result of ibv_modify_qp(3): 0 for success,
	// else the errno of the first failing rule in call order.
	Errno syscall.Errno
	// Findings are every rule that fired, in call order (errors, then
	// warnings and notes in their stage's place).
	Findings []Finding
}

// OK reports whether the modify is predicted to succeed.
func (v *Verdict) OK() bool { return v.Known && v.Errno == 0 }

// Decisive is the finding whose errno the kernel returns (the first
// error in call order), or nil when the modify succeeds.
func (v *Verdict) Decisive() *Finding {
	for i := range v.Findings {
		if v.Findings[i].Severity == SevError {
			return &v.Findings[i]
		}
	}
	return nil
}

// Errors are the findings that make the modify fail, in call order.
func (v *Verdict) Errors() []Finding { return v.bySeverity(SevError) }

// Warnings are values the kernel accepts that are wrong or meaningless.
func (v *Verdict) Warnings() []Finding { return v.bySeverity(SevWarning) }

func (v *Verdict) bySeverity(s Severity) []Finding {
	var out []Finding
	for _, f := range v.Findings {
		if f.Severity == s {
			out = append(out, f)
		}
	}
	return out
}

// Check predicts the kernel's answer to ibv_modify_qp(3) on a QP of type
// typ that is in state cur, asked to move to next with the given mask and
// attributes, and explains it. next is the target (attr.State is not
// read); with no STATE bit in the mask the kernel treats the modify as
// cur→cur, and Check says so. attr may be nil: then only the mask is
// checked. env may be nil or partly filled; rules needing unknown facts
// are skipped.
//
// The rules, in call order, mirror rdma-core libibverbs/cmd.c
// (ibv_cmd_modify_qp), drivers/infiniband/core/uverbs_cmd.c (modify_qp),
// drivers/infiniband/core/verbs.c (_ib_modify_qp, ib_modify_qp_is_ok,
// qp_state_table) and, when env.Driver is "rxe",
// drivers/infiniband/sw/rxe/rxe_qp.c (rxe_qp_chk_attr) of Linux 6.1,
// with 6.12's one difference found in the lab (rxeSkipsTable).
func Check(cur, next QPState, typ QPType, mask QPAttrMask, attr *QPAttr, env *CheckEnv) Verdict {
	c := &checkCtx{cur: cur, next: next, typ: typ, mask: mask, kmask: mask}
	if attr != nil {
		c.attr, c.hasAttr = *attr, true
	}
	if env != nil {
		c.env = *env
	}
	// The target is next, whatever attr.State says: the shell names the
	// state, the attr carries the values.
	c.attr.State = next
	c.roce = c.env.Port != nil && c.env.Port.LinkLayer == LinkLayerEthernet
	c.rxe = c.env.Driver == "rxe"
	// The driver's view of the transition (rxe_qp_chk_attr): a claimed
	// current state wins, and no STATE means staying put.
	c.tableFrom = cur
	if mask&AttrCurState != 0 && c.hasAttr {
		c.tableFrom = c.attr.CurState
	}
	c.tableTo = c.tableFrom
	if mask&AttrState != 0 {
		c.tableTo = next
	}
	c.noTable = c.rxe && mask&AttrState == 0 && rxeSkipsTable(c.env.Kernel)
	v := Verdict{From: cur, To: next, Type: typ, Mask: mask, Known: true}
	for _, r := range modifyRules {
		if r.driver != "" && r.driver != c.env.Driver {
			continue
		}
		for _, f := range r.run(c) {
			if f.Rule == "" {
				f.Rule = r.id
			}
			f.Stage, f.Source = r.stage, r.source
			if f.Severity == SevError && f.Errno == 0 {
				f.Errno = r.errno
			}
			v.Findings = append(v.Findings, f)
		}
		if c.unknown {
			v.Known = false
		}
	}
	v.TableFrom, v.TableTo, v.KernelMask = c.tableFrom, c.tableTo, c.kmask
	v.Rule, v.Missing, v.Extra, v.TableOK = c.rule, c.missing, c.extra, c.tableOK
	if d := v.Decisive(); d != nil {
		v.Errno = d.Errno
	}
	return v
}

// checkCtx is one Check call's working state, shared by the rules.
type checkCtx struct {
	cur, next          QPState
	typ                QPType
	mask, kmask        QPAttrMask
	attr               QPAttr
	hasAttr            bool
	env                CheckEnv
	roce, rxe          bool
	tableFrom, tableTo QPState
	rule               TransitionRule
	missing, extra     QPAttrMask
	tableOK, unknown   bool
	// noTable: rxe on this kernel skips ib_modify_qp_is_ok (rxeSkipsTable).
	noTable bool
}

// has reports whether the kernel mask (as rewritten so far) has a bit.
func (c *checkCtx) has(b QPAttrMask) bool { return c.kmask&b != 0 }

// movesToRTR is uverbs' test for "this is the INIT→RTR transition" when
// it checks the AV's port (STATE set and qp_state RTR).
func (c *checkCtx) movesToRTR() bool { return c.mask&AttrState != 0 && c.next == QPStateRTR }

// portValid mirrors rdma_is_port_valid: ports count from 1 to the
// device's port count (unknown count: only 0 is known to be invalid).
func (c *checkCtx) portValid(p uint8) bool {
	return p >= 1 && (c.env.PortCount == 0 || int(p) <= c.env.PortCount)
}

// gidEntry finds a populated GID entry by index; known is false when the
// GID table was not given.
func (c *checkCtx) gidEntry(index uint8) (e GIDEntry, populated, known bool) {
	return c.env.GIDEntry(index)
}

// GIDEntry finds the populated entry at sgid_index index of the port's
// GID table (ibv_query_gid_table(3)); known is false when GIDs is nil.
func (e *CheckEnv) GIDEntry(index uint8) (g GIDEntry, populated, known bool) {
	if e.GIDs == nil {
		return GIDEntry{}, false, false
	}
	i := slices.IndexFunc(e.GIDs, func(g GIDEntry) bool { return g.Index == int(index) && !g.GID.IsZero() })
	if i < 0 {
		return GIDEntry{}, false, true
	}
	return e.GIDs[i], true, true
}

// connectedType is is_qp_type_connected() of verbs.c: the types whose AV
// the core resolves to a MAC address on RoCE.
func connectedType(t QPType) bool {
	return t == QPTypeRC || t == QPTypeUC || t == QPTypeXRCSend || t == QPTypeXRCRecv
}
