package rdma

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
)

// modifyRule is one check a modify passes on its way to the driver. The
// rules are kept in call order (modifyRules); Check runs them all and the
// first error decides the errno.
type modifyRule struct {
	id    string
	stage Stage
	// errno is the rule's errno when its findings do not set one.
	errno syscall.Errno
	// driver limits the rule to one kernel driver ("" = all).
	driver string
	source string
	run    func(c *checkCtx) []Finding
}

// Sources of the rules, cited in every finding.
const (
	srcLibCmd      = "rdma-core libibverbs/cmd.c ibv_cmd_modify_qp (rxe provider: providers/rxe/rxe.c rxe_modify_qp)"
	srcUVerbsMask  = "drivers/infiniband/core/uverbs_cmd.c ib_uverbs_modify_qp, ib_uverbs_ex_modify_qp"
	srcUVerbs      = "drivers/infiniband/core/uverbs_cmd.c modify_qp"
	srcUVerbsXRC   = "drivers/infiniband/core/uverbs_cmd.c modify_qp_mask"
	srcCoreAH      = "drivers/infiniband/core/verbs.c _ib_modify_qp, rdma_check_ah_attr"
	srcCoreGID     = "drivers/infiniband/core/verbs.c rdma_fill_sgid_attr; core/cache.c rdma_get_gid_attr"
	srcCoreDMAC    = "drivers/infiniband/core/verbs.c ib_resolve_eth_dmac; core/addr.c rdma_resolve_ip"
	srcCoreResolve = "drivers/infiniband/core/addr.c rdma_resolve_ip, addr_resolve, dst_fetch_ha (route, then neighbour, 1000 ms)"
	srcCoreAlt     = "drivers/infiniband/core/verbs.c _ib_modify_qp (alternate path)"
	srcCorePSN     = "drivers/infiniband/core/verbs.c _ib_modify_qp (PSN masking)"
	srcTable       = "drivers/infiniband/core/verbs.c ib_modify_qp_is_ok, qp_state_table"
	srcRxeChk      = "drivers/infiniband/sw/rxe/rxe_qp.c rxe_qp_chk_attr"
	srcRxeAV       = "drivers/infiniband/sw/rxe/rxe_av.c rxe_av_chk_attr"
	srcRxeFrom     = "drivers/infiniband/sw/rxe/rxe_qp.c rxe_qp_from_attr (stores the value unchecked)"
	srcSpec        = "IBTA spec vol. 1 ch. 9 (BTH/AETH field widths); ibv_modify_qp(3)"
)

// fail, warn and note build a rule's findings; Check fills in the rule
// id, stage and source.
func fail(attrs QPAttrMask, problem, why, fix string) []Finding {
	return []Finding{{Severity: SevError, Attrs: attrs, Problem: problem, Why: why, Fix: fix}}
}

func warn(attrs QPAttrMask, problem, why, fix string) []Finding {
	return []Finding{{Severity: SevWarning, Attrs: attrs, Problem: problem, Why: why, Fix: fix}}
}

func note(attrs QPAttrMask, problem, why string) []Finding {
	return []Finding{{Severity: SevNote, Attrs: attrs, Problem: problem, Why: why}}
}

// Mask bits outside the attributes the legacy write command carries
// (IB_QP_ATTR_STANDARD_BITS = bits 0..20 in include/rdma/ib_verbs.h).
const (
	maskStandard  QPAttrMask = 1<<21 - 1
	maskSMACVID   QPAttrMask = 0xf << 21 // bits 21-24, never exposed to user space
	maskAboveRate QPAttrMask = ^(AttrRateLimit<<1 - 1)
)

// xrcIgnored are the bits uverbs silently drops per type before the
// driver sees the mask (uverbs_cmd.c modify_qp_mask).
var xrcIgnored = map[QPType]QPAttrMask{
	QPTypeXRCSend: AttrMaxDestRdAtomic | AttrMinRNRTimer,
	QPTypeXRCRecv: AttrMaxQPRdAtomic | AttrRetryCnt | AttrRNRRetry,
}

// extraWhy explains why a transition refuses some attributes learners
// often add.
var extraWhy = map[QPAttrMask]string{
	AttrAV:       "an address is set once, at INIT→RTR (or changed in SQD→SQD); a UD QP never has one: each UD send names its destination with an address handle (ibv_create_ah)",
	AttrCap:      "queue sizes are fixed when the QP is created (ibv_create_qp's cap); no transition changes them",
	AttrCurState: "CUR_STATE is for reporting a state the device changed on its own; most steps do not accept it",
	AttrPort:     "the port is chosen at RESET→INIT; only INIT→INIT and (for RC and XRC) SQD→SQD may change it",
	AttrQKey:     "only UD (and QP0/QP1) QPs have a Q_Key",
	AttrPathMTU:  "the path MTU is part of the peer's path and is set at INIT→RTR only",
	AttrDestQPN:  "the peer QP is chosen once, at INIT→RTR, and never changes",
	AttrRQPSN:    "the receive PSN is set once, at INIT→RTR",
	AttrSQPSN:    "the send PSN is set once, at RTR→RTS",
}

// modifyRules are every rule, in the order an ibv_modify_qp call meets
// them: libibverbs, uverbs, the core, the state table, the driver; then
// the values nothing checks.
var modifyRules = slices.Concat(
	// libibverbs, then uverbs' command handler, in the order modify_qp
	// tests them, then _ib_modify_qp's address work.
	[]modifyRule{
		{id: "libibverbs.extended-mask", stage: StageLibrary, errno: syscall.EOPNOTSUPP, driver: "rxe", source: srcLibCmd, run: ruleLegacyMask},
		{id: "uverbs.mask-bits", stage: StageUVerbs, errno: syscall.EOPNOTSUPP, source: srcUVerbsMask, run: ruleMaskBits},
		{id: "uverbs.port", stage: StageUVerbs, errno: syscall.EINVAL, source: srcUVerbs, run: rulePort},
		{id: "uverbs.av-port", stage: StageUVerbs, errno: syscall.EINVAL, source: srcUVerbs, run: ruleAVPort},
		{id: "uverbs.av-port-rewrite", stage: StageUVerbs, errno: syscall.EINVAL, source: srcUVerbs, run: ruleAVPortRewrite},
		{id: "uverbs.alt-port", stage: StageUVerbs, errno: syscall.EINVAL, source: srcUVerbs, run: ruleAltPort},
		{id: "uverbs.state-range", stage: StageUVerbs, errno: syscall.EINVAL, source: srcUVerbs, run: ruleStateRange},
		{id: "uverbs.qkey-reserved", stage: StageUVerbs, errno: syscall.EPERM, source: srcUVerbs + "; core/nldev.c rdma_nl_get_privileged_qkey", run: ruleQKey},
		{id: "uverbs.xrc-ignored", stage: StageUVerbs, source: srcUVerbsXRC, run: ruleXRCIgnored},
		{id: "core.av-grh", stage: StageCore, errno: syscall.EINVAL, source: srcCoreAH, run: ruleAVGRH},
		{id: "core.sgid", stage: StageCore, errno: syscall.ENODATA, source: srcCoreGID, run: ruleSGID},
		{id: "core.dgid-family", stage: StageCore, errno: syscall.EINVAL, source: srcCoreDMAC, run: ruleDGIDFamily},
		{id: "core.resolve", stage: StageCore, errno: syscall.ETIMEDOUT, source: srcCoreResolve, run: ruleResolve},
		{id: "core.alt-path-roce", stage: StageCore, errno: syscall.EINVAL, source: srcCoreAlt, run: ruleAltPathRoCE},
	},
	// PSN masking happens in _ib_modify_qp after the AV work.
	limitRules(StageCore),
	// The driver: ib_modify_qp_is_ok first, then rxe's own checks in
	// rxe_qp_chk_attr's order.
	[]modifyRule{
		{id: "table.no-state", stage: StageTable, source: srcTable, run: ruleNoState},
		{id: "table.cur-state-claim", stage: StageTable, source: srcRxeChk + "; drivers/infiniband/hw/mlx5/qp.c mlx5_ib_modify_qp", run: ruleCurStateClaim},
		{id: "table.cur-state", stage: StageTable, errno: syscall.EINVAL, source: srcTable, run: ruleCurState},
		{id: "table.transition", stage: StageTable, errno: syscall.EINVAL, source: srcTable, run: ruleTransition},
		{id: "rxe.sqd-draining", stage: StageDriver, errno: syscall.EINVAL, driver: "rxe", source: srcRxeChk, run: ruleSQDDraining},
		{id: "rxe.access-type", stage: StageDriver, errno: syscall.EINVAL, driver: "rxe", source: srcRxeChk + " (6.12)", run: ruleRxeAccessType},
		{id: "rxe.gid-type", stage: StageDriver, errno: syscall.EINVAL, driver: "rxe", source: srcRxeAV, run: ruleRxeGIDType},
	},
	limitRules(StageDriver),
	// Last, what nothing checks: warnings only.
	limitRules(StageLater),
	[]modifyRule{
		{id: "later.path-mtu-code", stage: StageLater, source: srcRxeFrom, run: rulePathMTUCode},
		{id: "later.no-rd-atomic", stage: StageLater, source: srcSpec, run: ruleNoRdAtomic},
	},
)

// ruleLegacyMask: ibv_cmd_modify_qp refuses any bit from RATE_LIMIT up
// with EOPNOTSUPP, because the write command it sends (struct
// ib_uverbs_modify_qp) has no field for them. Providers that use the
// extended command (mlx5 for RATE_LIMIT) are not bound by it, so the
// rule is limited to rxe, whose provider uses the plain one.
func ruleLegacyMask(c *checkCtx) []Finding {
	bad := c.mask & maskAboveRate
	if c.mask&AttrRateLimit != 0 {
		bad |= AttrRateLimit
	}
	if bad == 0 {
		return nil
	}
	return fail(bad, fmt.Sprintf("libibverbs refuses %s before the kernel sees it", strings.Join(bad.Names(), ", ")),
		"the rxe provider sends modify through the original write command, which carries only the attributes up to DEST_QPN; RATE_LIMIT needs the extended command, and only RAW_PACKET QPs on NICs that pace packets (mlx5) use it",
		"leave "+maskWords(bad)+" out of the mask")
}

// ruleMaskBits: ib_uverbs_modify_qp refuses bits outside
// IB_QP_ATTR_STANDARD_BITS (0..20); ib_uverbs_ex_modify_qp accepts
// RATE_LIMIT in addition. Bits 21-24 are IB_QP_SMAC, IB_QP_ALT_SMAC,
// IB_QP_VID and IB_QP_ALT_VID, kernel-internal since 4.x.
func ruleMaskBits(c *checkCtx) []Finding {
	bad := c.mask & maskSMACVID
	if !c.rxe {
		bad |= c.mask & maskAboveRate
	}
	if bad == 0 {
		return nil
	}
	return fail(bad, fmt.Sprintf("mask bits %s are not attributes user space may set", bad),
		"bits 21 to 24 were the kernel's own source-MAC and VLAN fields and were never exposed; bits above RATE_LIMIT are reserved, so the kernel answers EOPNOTSUPP",
		"remove them; ibv_modify_qp(3) lists the attribute bits")
}

// rulePort: modify_qp checks port_num with rdma_is_port_valid before
// anything else when PORT is in the mask.
func rulePort(c *checkCtx) []Finding {
	if !c.has(AttrPort) || !c.hasAttr || c.portValid(c.attr.Port) {
		return nil
	}
	return fail(AttrPort, fmt.Sprintf("port %d does not exist on this device", c.attr.Port),
		portRange(c), "set port=1 (the first port; ibv_devinfo lists them)")
}

// portRange says which ports exist, as far as the environment tells.
func portRange(c *checkCtx) string {
	if c.env.PortCount > 0 {
		return fmt.Sprintf("ports count from 1 to %d here", c.env.PortCount)
	}
	return "ports count from 1; 0 is never a port"
}

// ruleAVPort: modify_qp checks the AV's own port_num with
// rdma_is_port_valid; a zeroed ah_attr (port 0) is the usual cause.
func ruleAVPort(c *checkCtx) []Finding {
	if !c.has(AttrAV) || !c.hasAttr || c.portValid(c.attr.AH.PortNum) {
		return nil
	}
	return fail(AttrAV, fmt.Sprintf("the address vector's port_num is %d, which is not a port", c.attr.AH.PortNum),
		"ah_attr.port_num is separate from the QP's port_num and easy to leave at 0; "+portRange(c),
		"set ah_port=1 (the port the QP was bound to at INIT)")
}

// ruleAVPortRewrite mirrors uverbs' special handling of AV: at INIT→RTR
// the AV's port must be the QP's port; anywhere else a new AV is a new
// primary path, and uverbs adds PORT to the mask with the AV's port.
func ruleAVPortRewrite(c *checkCtx) []Finding {
	if !c.has(AttrAV) || (c.hasAttr && !c.portValid(c.attr.AH.PortNum)) {
		return nil
	}
	if c.movesToRTR() {
		if c.hasAttr && c.env.QPPort != 0 && c.attr.AH.PortNum != c.env.QPPort {
			return fail(AttrAV, fmt.Sprintf("the address vector says port %d, but the QP was bound to port %d at INIT", c.attr.AH.PortNum, c.env.QPPort),
				"at INIT→RTR the kernel requires the AV's port_num to be the QP's own port",
				fmt.Sprintf("set ah_port=%d", c.env.QPPort))
		}
		return nil
	}
	if c.mask&AttrPort != 0 {
		if c.hasAttr && c.attr.Port != c.attr.AH.PortNum {
			return fail(AttrPort|AttrAV, fmt.Sprintf("port is %d but the address vector's port_num is %d", c.attr.Port, c.attr.AH.PortNum),
				"outside INIT→RTR a new AV moves the QP's primary path, and its port must be the QP's port",
				"make port and ah_port the same")
		}
		return nil
	}
	c.kmask |= AttrPort
	return note(AttrPort|AttrAV, "the kernel adds PORT to this mask, with the address vector's port",
		"outside INIT→RTR a new AV is a new primary path, and uverbs sets the port with it; a step that does not accept PORT (UC's SQD→SQD, for one) is then refused, so through ibv_modify_qp a UC QP cannot change its AV")
}

// ruleAltPort: modify_qp requires alt_port_num and the alternate AV's
// port_num to be valid ports and equal.
func ruleAltPort(c *checkCtx) []Finding {
	if !c.has(AttrAltPath) || !c.hasAttr {
		return nil
	}
	a := c.attr
	if c.portValid(a.AltPort) && c.portValid(a.AltAH.PortNum) && a.AltPort == a.AltAH.PortNum {
		return nil
	}
	return fail(AttrAltPath, fmt.Sprintf("the alternate path's ports do not fit: alt_port_num %d, alt_ah_attr.port_num %d", a.AltPort, a.AltAH.PortNum),
		"both must be valid ports and equal", "set alt_port and the alternate AV's port to the same valid port (or leave ALT_PATH out)")
}

// ruleStateRange: modify_qp refuses qp_state or cur_qp_state above
// IB_QPS_ERR (IBV_QPS_UNKNOWN and garbage) with EINVAL.
func ruleStateRange(c *checkCtx) []Finding {
	var out []Finding
	if c.mask&AttrState != 0 && !validState(c.next) {
		out = append(out, fail(AttrState, fmt.Sprintf("%s is not a state a QP can be moved to", c.next),
			"qp_state must be RESET, INIT, RTR, RTS, SQD, SQE or ERR", "name one of those")...)
	}
	if c.mask&AttrCurState != 0 && c.hasAttr && !validState(c.attr.CurState) {
		out = append(out, fail(AttrCurState, fmt.Sprintf("cur_qp_state %s is not a QP state", c.attr.CurState),
			"cur_qp_state must be RESET..ERR", "leave CUR_STATE out")...)
	}
	return out
}

// ruleQKey: modify_qp refuses a Q_Key with IB_QP_SET_QKEY (bit 31) with
// EPERM unless rdma_nl_get_privileged_qkey() (CAP_NET_RAW, or the
// netlink privileged-qkey switch). The lab runs as root, so only the
// privileged side is observed there.
func ruleQKey(c *checkCtx) []Finding {
	if !c.has(AttrQKey) || !c.hasAttr || c.attr.QKey&0x80000000 == 0 {
		return nil
	}
	problem := fmt.Sprintf("qkey 0x%08x has bit 31 set, which marks a privileged Q_Key", c.attr.QKey)
	why := "Q_Keys with the top bit set are reserved for privileged QPs (IBTA); the kernel allows them only with CAP_NET_RAW or `rdma system set privileged-qkey on`"
	switch c.env.QKey {
	case QKeyUnprivileged:
		return fail(AttrQKey, problem, why, "use a Q_Key below 0x80000000, e.g. qkey=0x11111111")
	case QKeyPrivilegeUnknown:
		return warn(AttrQKey, problem, why+"; without that privilege the modify fails with EPERM", "use a Q_Key below 0x80000000, e.g. qkey=0x11111111")
	}
	return nil
}

// ruleXRCIgnored: modify_qp_mask strips attributes that mean nothing for
// one side of XRC before the driver (and the table) see the mask, so an
// XRC QP may carry them in any transition.
func ruleXRCIgnored(c *checkCtx) []Finding {
	drop := c.kmask & xrcIgnored[c.typ]
	if drop == 0 {
		return nil
	}
	c.kmask &^= drop
	return note(drop, fmt.Sprintf("the kernel ignores %s on %s QPs and drops them from the mask", strings.Join(drop.Names(), ", "), c.typ),
		"an XRC initiator has no responder side and an XRC target no requester side, so those attributes mean nothing there")
}

// ruleAVGRH: _ib_modify_qp → rdma_fill_sgid_attr → rdma_check_ah_attr
// refuses an AV without IB_AH_GRH on a RoCE port (ah_attr.type ROCE),
// for every QP type, before the driver sees it.
func ruleAVGRH(c *checkCtx) []Finding {
	if !c.has(AttrAV) || !c.hasAttr || !c.roce || c.attr.AH.IsGlobal {
		return nil
	}
	return fail(AttrAV, "the address vector has no GRH (is_global=0), and this port is Ethernet (RoCE)",
		"RoCE has no LIDs: the peer is found by its GID, an IP address carried in the GRH, so every address vector on RoCE must be global; dlid means nothing here",
		"set is_global=1 dgid=<the peer's GID> sgid_index=<your RoCE v2 GID index> hop_limit=1")
}

// ruleSGID: rdma_fill_sgid_attr looks the source GID up with
// rdma_get_gid_attr: EINVAL beyond the table, ENODATA for an empty
// slot. On rxe the table has 1024 slots, so only ENODATA is reachable
// with a u8 index.
func ruleSGID(c *checkCtx) []Finding {
	if !c.has(AttrAV) || !c.hasAttr || !c.attr.AH.IsGlobal {
		return nil
	}
	idx := c.attr.AH.GRH.SGIDIndex
	if c.env.Port != nil && int(idx) >= c.env.Port.GIDTblLen {
		f := fail(AttrAV, fmt.Sprintf("sgid_index %d is beyond the port's GID table (%d entries)", idx, c.env.Port.GIDTblLen),
			"the source GID is looked up in the port's GID table", "pick an index ibv_devinfo -v lists")
		f[0].Errno = syscall.EINVAL
		return f
	}
	if _, populated, known := c.gidEntry(idx); known && !populated {
		return fail(AttrAV, fmt.Sprintf("sgid_index %d is an empty slot of the GID table", idx),
			"the source GID is the local address packets carry; the kernel answers ENODATA (\"no data available\") for an empty slot",
			"pick a populated index: "+gidChoices(c))
	}
	return nil
}

// gidChoices lists the populated GIDs for a fix text.
func gidChoices(c *checkCtx) string { return gidChoicesWhere(c, func(GIDEntry) bool { return true }) }

// gidChoicesWhere lists the populated GIDs that pass keep.
func gidChoicesWhere(c *checkCtx, keep func(GIDEntry) bool) string {
	var parts []string
	for _, g := range c.env.GIDs {
		if !g.GID.IsZero() && keep(g) {
			parts = append(parts, fmt.Sprintf("%d (%s, %s)", g.Index, g.GID, g.Type))
		}
	}
	if len(parts) == 0 {
		return "the port has none: is the netdev up with an IP address?"
	}
	return strings.Join(parts, ", ")
}

// ruleDGIDFamily: for connected QPs on RoCE, _ib_modify_qp resolves the
// destination MAC (ib_resolve_eth_dmac → rdma_addr_find_l2_eth_by_grh →
// rdma_resolve_ip), which refuses a source and destination of different
// address families with EINVAL. An all-zero DGID reads as IPv6 "::".
// What the resolution itself meets (no route, no neighbour) is
// core.resolve's, from what a resolver found (CheckEnv.Resolution).
func ruleDGIDFamily(c *checkCtx) []Finding {
	if !c.has(AttrAV) || !c.hasAttr || !c.roce || !connectedType(c.typ) || !c.attr.AH.IsGlobal {
		return nil
	}
	src, populated, _ := c.gidEntry(c.attr.AH.GRH.SGIDIndex)
	if !populated {
		return nil
	}
	dgid := c.attr.AH.GRH.DGID
	family := map[bool]string{true: "IPv4", false: "IPv6"}
	if dgid.IsIPv4() == src.GID.IsIPv4() {
		if dgid.IsZero() {
			return warn(AttrAV, "the DGID is all zeros: it names no peer",
				"the kernel resolves the peer's MAC address from the DGID at this step and cannot resolve ::",
				"set dgid=<the peer's GID>")
		}
		return nil
	}
	problem := fmt.Sprintf("the DGID %s is %s but the source GID %d (%s) is %s", dgid, family[dgid.IsIPv4()], src.Index, src.GID, family[src.GID.IsIPv4()])
	if dgid.IsZero() {
		problem = fmt.Sprintf("the DGID is all zeros (it names no peer), and the source GID %d (%s) is %s", src.Index, src.GID, family[src.GID.IsIPv4()])
	}
	fix := fmt.Sprintf("for this DGID use an %s source GID: sgid_index=%s", family[dgid.IsIPv4()],
		gidChoicesWhere(c, func(g GIDEntry) bool { return g.GID.IsIPv4() == dgid.IsIPv4() }))
	if dgid.IsZero() {
		fix = "set dgid=<the peer's GID> (for an IPv4 peer ::ffff:a.b.c.d)"
	}
	return fail(AttrAV, problem,
		"for a connected QP on RoCE the kernel finds the peer's MAC address through the IP stack now, and an IPv4 source cannot reach an IPv6 destination or back",
		fix)
}

// ruleAltPathRoCE: _ib_modify_qp refuses ALT_PATH unless both the
// alternate AV's port and the QP's port are InfiniBand, so on RoCE every
// mask with ALT_PATH fails, even where the table allows it. The alternate
// sgid is looked up first, so an empty slot answers ENODATA instead.
func ruleAltPathRoCE(c *checkCtx) []Finding {
	if !c.has(AttrAltPath) || !c.roce {
		return nil
	}
	f := fail(AttrAltPath, "ALT_PATH is set, and this port is RoCE",
		"alternate paths (automatic path migration, APM) are an InfiniBand feature; the kernel refuses them on RoCE ports",
		"leave ALT_PATH out")
	if c.hasAttr && c.attr.AltAH.IsGlobal {
		if _, populated, known := c.gidEntry(c.attr.AltAH.GRH.SGIDIndex); known && !populated {
			f[0].Errno = syscall.ENODATA // the alternate sgid is looked up first
		}
	}
	return f
}

// ruleNoState: without IB_QP_STATE the driver takes new_state =
// cur_state (rxe_qp_chk_attr), a frequent surprise: a learner who forgot
// STATE gets EINVAL for attributes that are right for the step they
// meant.
func ruleNoState(c *checkCtx) []Finding {
	if c.mask&AttrState != 0 || c.next == c.tableFrom {
		return nil
	}
	if c.noTable {
		return warn(AttrState, fmt.Sprintf("the mask has no STATE, so this modify does not move the QP: rxe on this kernel changes the attributes in place, in %s, and never checks them against a step", c.tableFrom),
			"only the STATE bit makes the kernel read qp_state; rxe from 6.12 consults the state table only for modifies with STATE",
			"add STATE to the mask")
	}
	return warn(AttrState, fmt.Sprintf("the mask has no STATE, so this modify does not move the QP: the kernel checks it as %s→%s, not %s→%s", c.tableFrom, c.tableFrom, c.cur, c.next),
		"only the STATE bit makes the kernel read qp_state; without it a modify changes attributes in place",
		"add STATE to the mask")
}

// ruleCurStateClaim: rxe_qp_chk_attr and mlx5_ib_modify_qp use
// attr->cur_qp_state as the current state when CUR_STATE is set, so the
// table is consulted for the claimed state. The lab shows rxe even moving
// a RESET UD QP to RTS when it claims SQE.
func ruleCurStateClaim(c *checkCtx) []Finding {
	if c.mask&AttrCurState == 0 || !c.hasAttr || c.attr.CurState == c.cur || !validState(c.attr.CurState) {
		return nil
	}
	return warn(AttrCurState, fmt.Sprintf("cur_qp_state says %s but the QP is in %s; the driver believes you and checks %s→%s", c.attr.CurState, c.cur, c.tableFrom, c.tableTo),
		"rxe and mlx5 take the current state from cur_qp_state when CUR_STATE is set, so a wrong claim checks (and performs) a different transition",
		"leave CUR_STATE out, or set cur_state to the state the QP is really in")
}

// ruleCurState is rule 1 of ib_modify_qp_is_ok: CUR_STATE only from RTR,
// RTS, SQD or SQE (of the state the driver believes).
func ruleCurState(c *checkCtx) []Finding {
	if c.noTable || c.mask&AttrCurState == 0 || slices.Contains(curStateAllowedFrom, c.tableFrom) {
		return nil
	}
	return fail(AttrCurState, fmt.Sprintf("CUR_STATE is accepted only from RTR, RTS, SQD or SQE, and the QP is in %s", c.tableFrom),
		"CUR_STATE exists to tell the driver about a state the device reached on its own (RTS→SQE after a send error); before RTR there is nothing to report",
		"leave CUR_STATE out")
}

// ruleTransition is the heart of ib_modify_qp_is_ok: the cell must be
// valid, every required attribute present, nothing else set.
func ruleTransition(c *checkCtx) []Finding {
	if !validState(c.tableFrom) || !validState(c.tableTo) {
		if !validState(c.cur) {
			c.unknown = true
			return note(0, fmt.Sprintf("%s is not a state a QP can be in", c.cur), "verbscope cannot check a modify from it")
		}
		return nil // uverbs.state-range refused it already
	}
	if c.noTable {
		c.tableOK = true // nothing consults the table: it refuses nothing
		return nil
	}
	if !TableHasType(c.typ) {
		c.unknown = true
		return note(0, fmt.Sprintf("the kernel's state table has no rules for %s QPs", c.typ),
			"the driver checks these QPs itself (mlx5 DCI/DCT, for one), so verbscope cannot predict its answer")
	}
	// The verdict comes from ModifyIsOK itself; the findings below only
	// explain it, so they cannot drift from the kernel's rules.
	c.rule = LookupTransition(c.tableFrom, c.tableTo, c.typ)
	c.tableOK = ModifyIsOK(c.tableFrom, c.tableTo, c.typ, c.kmask)
	if !c.rule.Valid {
		return invalidTransition(c)
	}
	c.missing = c.rule.Required &^ c.kmask
	c.extra = c.kmask &^ c.rule.Allowed()
	step := fmt.Sprintf("%s→%s on %s QP", c.tableFrom, c.tableTo, withArticle(c.typ))
	var out []Finding
	if c.missing != 0 {
		f := fail(c.missing, fmt.Sprintf("%s needs %s, which the mask does not have", step, strings.Join(c.missing.Names(), ", ")),
			c.rule.Note, "add "+fixAdd(c.missing))
		f[0].Rule = "table.missing"
		out = append(out, f...)
	}
	// Verdict.Extra keeps CUR_STATE (the kernel counts it), but its
	// finding already said why; do not say it twice.
	extra := c.extra
	if !slices.Contains(curStateAllowedFrom, c.tableFrom) {
		extra &^= AttrCurState // table.cur-state explained it
	}
	if extra != 0 {
		accepts := "nothing but STATE"
		if o := c.rule.Required | c.rule.Optional; o != 0 {
			accepts = strings.Join(o.Names(), ", ") + " besides STATE"
		}
		why := "the kernel refuses any attribute a step does not list, even a harmless one"
		for _, b := range ExplainMask(extra) {
			if w, ok := extraWhy[b.Bit]; ok {
				why += "; " + b.Name + ": " + w
			}
		}
		// A PORT the user did not write came from uverbs' AV rule:
		// removing PORT is impossible, leaving AV out is the fix.
		fix := "remove " + maskWords(extra)
		if added := extra & AttrPort &^ c.mask; added != 0 {
			fix = "the kernel added PORT because of AV; this step cannot take a new AV, so leave AV out"
			if rest := extra &^ AttrPort; rest != 0 {
				fix += ", and remove " + maskWords(rest)
			}
		}
		if c.mask&AttrState == 0 && c.next != c.tableFrom {
			fix = fmt.Sprintf("add STATE to move to %s (or %s)", c.next, fix)
		}
		f := fail(extra, fmt.Sprintf("%s does not accept %s (it takes %s)", step, strings.Join(extra.Names(), ", "), accepts),
			why, fix)
		f[0].Rule = "table.not-allowed"
		out = append(out, f...)
	}
	return out
}

// invalidTransition explains an invalid cell: where the QP can go
// instead, and the shortest walk to the target when there is one.
func invalidTransition(c *checkCtx) []Finding {
	legal := LegalNext(c.tableFrom, c.typ)
	names := make([]string, len(legal))
	for i, s := range legal {
		names[i] = s.String()
	}
	problem := fmt.Sprintf("%s→%s is not a transition: from %s a QP can go to %s", c.tableFrom, c.tableTo, c.tableFrom, strings.Join(names, ", "))
	if c.tableFrom == c.tableTo && c.mask&AttrState == 0 {
		problem = fmt.Sprintf("without STATE the QP stays in %s, and %s→%s is not a transition: %s attributes cannot be changed in place", c.tableFrom, c.tableFrom, c.tableTo, c.tableFrom)
	}
	why := "each step sets up one part of the QP (INIT: port and access, RTR: the peer, RTS: the sender), so none can be skipped or repeated"
	fix := ""
	if path := PathTo(c.tableFrom, c.tableTo, c.typ); len(path) > 0 {
		steps := []string{c.tableFrom.String()}
		for _, s := range path {
			steps = append(steps, s.String())
		}
		fix = "go " + strings.Join(steps, "→") + ", one modify per step"
	} else if c.tableTo == QPStateSQE {
		why = "SQE is entered only by the device, when a UD or UC send fails; no modify leads there"
		fix = "to pause sending, use SQD (RTS→SQD)"
	} else if c.tableFrom == c.tableTo {
		fix = "add STATE and move on (the shell's `next` does the usual step)"
	}
	f := fail(0, problem, why, fix)
	f[0].Rule = "table.invalid"
	return f
}

// withArticle is "an RC", "a UD": the type's name with its article.
func withArticle(t QPType) string {
	switch t {
	case QPTypeRC, QPTypeXRCSend, QPTypeXRCRecv, QPTypeSMI:
		return "an " + t.String()
	}
	return "a " + t.String()
}

// ruleSQDDraining: rxe_qp_chk_attr refuses a STATE change out of SQD,
// except to ERR, while the requester is still in QP_STATE_DRAIN; query
// reports that as sq_draining=1. The differential test waits for the
// drain to end, so this rule is not exercised there (its timing is the
// requester tasklet's).
func ruleSQDDraining(c *checkCtx) []Finding {
	if c.mask&AttrState == 0 || c.tableFrom != QPStateSQD || !c.env.SQDraining || c.tableTo == QPStateErr {
		return nil
	}
	return fail(AttrState, "the send queue is still draining (sq_draining=1)",
		"rxe refuses every move out of SQD except to ERR until its sends in flight are done",
		"wait for the IBV_EVENT_SQ_DRAINED async event (or query until sq_draining is 0), then retry")
}

// ruleRxeAccessType: 6.12's rxe_qp_chk_attr refuses ACCESS_FLAGS on a
// QP that is neither RC nor UC. With STATE the state table refuses it
// first (no UD step takes ACCESS_FLAGS); it decides only where rxe
// skips the table, a modify without STATE (rxeSkipsTable), found by the
// differential test on Debian's 6.12.117.
func ruleRxeAccessType(c *checkCtx) []Finding {
	if !c.noTable || c.mask&AttrAccessFlags == 0 || c.typ == QPTypeRC || c.typ == QPTypeUC {
		return nil
	}
	return fail(AttrAccessFlags, fmt.Sprintf("rxe takes ACCESS_FLAGS only on RC and UC QPs, and this is %s QP", withArticle(c.typ)),
		"remote access rights mean something only on connected transports that carry RDMA reads, writes and atomics",
		"remove ACCESS_FLAGS")
}

// ruleRxeGIDType: rxe_av_chk_attr refuses a source GID whose network
// type is not IPv4 or IPv6 (a RoCE v1 GID). rxe itself registers only
// RoCE v2 GIDs (RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP), so this fires only
// for GIDs another driver's table would have.
func ruleRxeGIDType(c *checkCtx) []Finding {
	if !c.has(AttrAV) || !c.hasAttr || !c.attr.AH.IsGlobal {
		return nil
	}
	e, populated, _ := c.gidEntry(c.attr.AH.GRH.SGIDIndex)
	if !populated || e.Type == GIDTypeRoCEv2 {
		return nil
	}
	return fail(AttrAV, fmt.Sprintf("sgid_index %d is a %s GID; rxe sends only RoCE v2", e.Index, e.Type),
		"rxe carries RDMA in UDP/IP packets (RoCE v2), so its source GID must be an IPv4 or IPv6 RoCE v2 GID",
		"pick a RoCE v2 GID: "+gidChoices(c))
}

// rulePathMTUCode: rxe_qp_chk_attr compares path_mtu with max_mtu only,
// so code 0 passes and rxe_qp_from_attr stores ib_mtu_enum_to_int(0),
// which is -1 (observed in the lab: the modify succeeds).
func rulePathMTUCode(c *checkCtx) []Finding {
	if !c.has(AttrPathMTU) || !c.hasAttr || c.attr.PathMTU >= MTU256 {
		return nil
	}
	return warn(AttrPathMTU, fmt.Sprintf("path_mtu %d is not an MTU code (1=256 .. 5=4096)", int(c.attr.PathMTU)),
		"rxe 6.1 checks only the upper bound and stores it, leaving the QP with no usable packet size",
		"set path_mtu=1024")
}

// ruleNoRdAtomic: a responder with max_dest_rd_atomic=0 has no slots for
// incoming reads and atomics, which learners copy from examples that
// only send.
func ruleNoRdAtomic(c *checkCtx) []Finding {
	if !c.has(AttrMaxDestRdAtomic) || !c.hasAttr || c.attr.MaxDestRdAtomic != 0 || (c.typ != QPTypeRC && c.typ != QPTypeXRCRecv) {
		return nil
	}
	return warn(AttrMaxDestRdAtomic, "max_dest_rd_atomic is 0: this QP will serve no RDMA read or atomic from its peer",
		"the responder keeps one slot per outstanding read or atomic, and 0 slots means every such request is refused",
		"set max_dest_rd_atomic=1 (or more for pipelined reads)")
}
