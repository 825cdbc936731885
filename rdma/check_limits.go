package rdma

import (
	"fmt"
	"syscall"
)

// valueLimit is an upper bound on one attribute's value: a table row per
// bound, with where it is enforced and what happens past it.
type valueLimit struct {
	id     string
	stage  Stage
	driver string // "" = every driver
	errno  syscall.Errno
	bit    QPAttrMask
	field  string
	get    func(a *QPAttr) uint64
	// max is the largest accepted value; ok=false when unknown (no port
	// or device facts), and then the rule is skipped.
	max      func(c *checkCtx) (uint64, bool)
	format   func(uint64) string
	why, fix string
	source   string
}

// constMax is a fixed bound (a field width or a driver constant).
func constMax(n uint64) func(*checkCtx) (uint64, bool) {
	return func(*checkCtx) (uint64, bool) { return n, true }
}

// hexText prints PSNs and QPNs in hex, as ibv_rc_pingpong does.
func hexText(v uint64) string { return fmt.Sprintf("%#x", v) }

// mtuText prints an MTU code as bytes, or as a code when it is none.
func mtuText(v uint64) string {
	if b := MTU(v).Bytes(); b > 0 {
		return fmt.Sprint(b)
	}
	return fmt.Sprintf("code %d", v)
}

// valueLimits are the bounds the kernel enforces (errno set) and the ones
// it does not (StageLater: accepted, wrong on the wire or elsewhere). The
// rxe rows mirror rxe_qp_chk_attr (drivers/infiniband/sw/rxe/rxe_qp.c);
// the field widths are the IBTA's (BTH: 24-bit PSN and QPN; 3-bit retry
// counts; 5-bit RNR timer and ACK timeout).
var valueLimits = []valueLimit{
	// The core masks PSNs to 24 bits before the driver and warns in
	// dmesg (_ib_modify_qp, for IB and RoCE ports); rxe masks again
	// with BTH_PSN_MASK. The lab reads the masked value back.
	{id: "core.rq-psn-24bit", stage: StageCore, bit: AttrRQPSN, field: "rq_psn", format: hexText,
		get: func(a *QPAttr) uint64 { return uint64(a.RQPSN) }, max: constMax(0xffffff),
		why:    "PSNs are 24 bits on the wire; the kernel keeps the low 24 bits and logs \"rq_psn overflow, masking to 24 bits\"",
		fix:    "use a 24-bit PSN (rc_pingpong: lrand48() & 0xffffff)",
		source: srcCorePSN},
	{id: "core.sq-psn-24bit", stage: StageCore, bit: AttrSQPSN, field: "sq_psn", format: hexText,
		get: func(a *QPAttr) uint64 { return uint64(a.SQPSN) }, max: constMax(0xffffff),
		why:    "PSNs are 24 bits on the wire; the kernel keeps the low 24 bits and logs \"sq_psn overflow, masking to 24 bits\"",
		fix:    "use a 24-bit PSN (rc_pingpong: lrand48() & 0xffffff)",
		source: srcCorePSN},

	// rxe's own bounds, checked after the table (rxe_qp_chk_attr).
	{id: "rxe.path-mtu", stage: StageDriver, driver: "rxe", errno: syscall.EINVAL, bit: AttrPathMTU, field: "path_mtu",
		get: func(a *QPAttr) uint64 { return uint64(a.PathMTU) },
		max: func(c *checkCtx) (uint64, bool) {
			return uint64(portOr(c).MaxMTU), c.env.Port != nil
		},
		format: mtuText,
		why:    "rxe refuses a path MTU above the port's max_mtu",
		fix:    "set path_mtu=1024 (or the port's active_mtu)",
		source: srcRxeChk},
	{id: "rxe.max-rd-atomic", stage: StageDriver, driver: "rxe", errno: syscall.EINVAL, bit: AttrMaxQPRdAtomic, field: "max_rd_atomic",
		get: func(a *QPAttr) uint64 { return uint64(a.MaxRdAtomic) },
		max: func(c *checkCtx) (uint64, bool) {
			return uint64(deviceOr(c).MaxQPRdAtom), c.env.Device != nil
		},
		why:    "rxe refuses more outstanding reads and atomics than the device's max_qp_rd_atom",
		fix:    "set max_rd_atomic=1 (rc_pingpong) or at most the device's limit",
		source: srcRxeChk},
	{id: "rxe.timeout", stage: StageDriver, driver: "rxe", errno: syscall.EINVAL, bit: AttrTimeout, field: "timeout",
		get: func(a *QPAttr) uint64 { return uint64(a.Timeout) }, max: constMax(31),
		why:    "the ACK timeout is an exponent, 4.096 µs × 2^timeout, and a 5-bit field: 31 is already about 2.4 hours",
		fix:    "set timeout=14 (about 67 ms, rc_pingpong)",
		source: srcRxeChk},

	// Bounds nothing in the 6.1 modify path enforces: rxe stores the
	// value (rxe_qp_from_attr), and the harm comes in traffic or on
	// other devices. The differential test shows each is accepted.
	{id: "later.path-mtu-active", stage: StageLater, bit: AttrPathMTU, field: "path_mtu",
		get: func(a *QPAttr) uint64 { return uint64(a.PathMTU) },
		max: func(c *checkCtx) (uint64, bool) {
			return uint64(portOr(c).ActiveMTU), c.env.Port != nil && portOr(c).ActiveMTU >= MTU256
		},
		format: mtuText,
		why:    "the port's active_mtu is what its link carries (on RoCE, the netdev's MTU less headers); rxe 6.1 accepts any path MTU up to max_mtu, but packets bigger than the link's MTU do not fit in one Ethernet frame, and both sides must use the same value",
		fix:    "set path_mtu to the port's active_mtu or less",
		source: srcRxeChk + " (checks max_mtu only)"},
	{id: "later.retry-cnt", stage: StageLater, bit: AttrRetryCnt, field: "retry_cnt",
		get: func(a *QPAttr) uint64 { return uint64(a.RetryCnt) }, max: constMax(7),
		why: "the retry count is a 3-bit field; rxe 6.1 stores any value unchecked, other devices refuse or truncate it",
		fix: "set retry_cnt=7 (rc_pingpong)", source: srcRxeFrom + "; " + srcSpec},
	{id: "later.rnr-retry", stage: StageLater, bit: AttrRNRRetry, field: "rnr_retry",
		get: func(a *QPAttr) uint64 { return uint64(a.RNRRetry) }, max: constMax(7),
		why: "the RNR retry count is a 3-bit field where 7 means \"retry forever\"; rxe 6.1 stores larger values as a plain count",
		fix: "set rnr_retry=7 (rc_pingpong)", source: srcRxeFrom + "; " + srcSpec},
	{id: "later.min-rnr-timer", stage: StageLater, bit: AttrMinRNRTimer, field: "min_rnr_timer",
		get: func(a *QPAttr) uint64 { return uint64(a.MinRNRTimer) }, max: constMax(31),
		why: "the RNR NAK timer is a 5-bit code in the AETH; rxe 6.1 stores the value and sends only its low 5 bits",
		fix: "set min_rnr_timer=12 (0.64 ms, rc_pingpong)", source: srcRxeFrom + "; " + srcSpec},
	{id: "later.dest-qpn-24bit", stage: StageLater, bit: AttrDestQPN, field: "dest_qpn", format: hexText,
		get: func(a *QPAttr) uint64 { return uint64(a.DestQPN) }, max: constMax(0xffffff),
		why: "QP numbers are 24 bits in the BTH; rxe 6.1 stores the value unchecked, and its packets carry only the low 24 bits, so they go to another QP",
		fix: "use the peer's qp_num as it was given to you", source: srcRxeFrom + "; " + srcSpec},
	{id: "later.max-dest-rd-atomic", stage: StageLater, bit: AttrMaxDestRdAtomic, field: "max_dest_rd_atomic",
		get: func(a *QPAttr) uint64 { return uint64(a.MaxDestRdAtomic) },
		max: func(c *checkCtx) (uint64, bool) {
			return uint64(deviceOr(c).MaxQPRdAtom), c.env.Device != nil
		},
		why: "the device serves at most max_qp_rd_atom reads and atomics per QP; rxe 6.1 accepts more (rounded up to a power of two), other devices refuse",
		fix: "set max_dest_rd_atomic=1 (rc_pingpong) or at most the device's max_qp_rd_atom", source: srcRxeFrom},
	{id: "later.max-rd-atomic-init", stage: StageLater, bit: AttrMaxQPRdAtomic, field: "max_rd_atomic",
		get: func(a *QPAttr) uint64 { return uint64(a.MaxRdAtomic) },
		max: func(c *checkCtx) (uint64, bool) {
			// rxe checks max_rd_atomic against max_qp_rd_atom itself
			// (rxe.max-rd-atomic); elsewhere the initiator bound applies.
			return uint64(deviceOr(c).MaxQPInitRdAtom), c.env.Device != nil && !c.rxe
		},
		why: "a QP may have at most the device's max_qp_init_rd_atom reads and atomics outstanding as initiator",
		fix: "set max_rd_atomic=1 (rc_pingpong) or at most max_qp_init_rd_atom", source: srcSpec},
	{id: "later.pkey-index", stage: StageLater, bit: AttrPKeyIndex, field: "pkey_index",
		get: func(a *QPAttr) uint64 { return uint64(a.PKeyIndex) },
		max: func(c *checkCtx) (uint64, bool) {
			return uint64(portOr(c).PKeyTblLen) - 1, c.env.Port != nil && portOr(c).PKeyTblLen > 0
		},
		why: "the index points into the port's P_Key table; Debian's 6.1 kernel (no CONFIG_SECURITY_INFINIBAND) and rxe accept any index, kernels with InfiniBand security and hardware drivers refuse it",
		fix: "set pkey_index=0", source: "drivers/infiniband/core/security.c (not built in Debian 6.1); " + srcRxeFrom},
}

// portOr and deviceOr give zero values for unknown facts, so the max
// functions can read fields before reporting ok=false.
func portOr(c *checkCtx) PortAttr {
	if c.env.Port == nil {
		return PortAttr{}
	}
	return *c.env.Port
}

func deviceOr(c *checkCtx) DeviceAttr {
	if c.env.Device == nil {
		return DeviceAttr{}
	}
	return *c.env.Device
}

// limitRules turns the value limits of one stage into modify rules.
func limitRules(stage Stage) []modifyRule {
	var out []modifyRule
	for _, l := range valueLimits {
		if l.stage != stage {
			continue
		}
		out = append(out, modifyRule{id: l.id, stage: l.stage, errno: l.errno, driver: l.driver, source: l.source, run: l.check})
	}
	return out
}

// check is the rule: the attribute is in the mask, the bound is known,
// and the value exceeds it.
func (l valueLimit) check(c *checkCtx) []Finding {
	if !c.has(l.bit) || !c.hasAttr {
		return nil
	}
	max, ok := l.max(c)
	v := l.get(&c.attr)
	if !ok || v <= max {
		return nil
	}
	format := func(n uint64) string { return fmt.Sprint(n) }
	if l.format != nil {
		format = l.format
	}
	problem := fmt.Sprintf("%s=%s is above %s", l.field, format(v), format(max))
	if l.errno == 0 {
		return warn(l.bit, problem+"; the kernel accepts it", l.why, l.fix)
	}
	return fail(l.bit, problem, l.why, l.fix)
}
