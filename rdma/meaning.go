package rdma

import "syscall"

// Meaning is an async event or errno explained for someone learning
// verbs: what it says happened, the usual causes, and what to check.
// (Completion statuses have WCStatus.Hint.)
type Meaning struct {
	Name    string // the symbolic name, e.g. "REM_ACCESS_ERR"
	What    string
	Causes  string
	Check   string
	Related string // where the reader goes next, if anywhere
}

// Meaning explains an asynchronous event (ibv_get_async_event(3)).
func (e EventType) Meaning() Meaning {
	m, ok := eventMeanings[e]
	if !ok {
		m = Meaning{What: "an event this version of verbscope does not know", Check: "see ibv_get_async_event(3)"}
	}
	m.Name = e.String()
	return m
}

var eventMeanings = map[EventType]Meaning{
	EventCQErr: {What: "a CQ failed, usually overrun: more completions arrived than it has entries",
		Check: "size CQs for every WR that can be outstanding on all QPs that use them, and poll often"},
	EventQPFatal: {What: "the QP hit an error it cannot report in a completion and went to ERR",
		Causes: "e.g. its CQ overflowed"},
	EventQPReqErr: {What: "the QP (as responder) received an invalid request and went to ERR",
		Causes: "an opcode or length it cannot accept"},
	EventQPAccessErr: {What: "the QP (as responder) saw an access violation and went to ERR",
		Causes: "an RDMA with a bad rkey or outside the MR, or without the QP's remote access flags"},
	EventCommEst:    {What: "the first packet arrived on a QP in RTR: communication is established"},
	EventSQDrained:  {What: "the send queue finished draining after RTS→SQD"},
	EventPathMig:    {What: "the QP migrated to its alternate path (APM)"},
	EventPathMigErr: {What: "migration to the alternate path failed"},
	EventDeviceFatal: {What: "the device failed; all its resources are unusable",
		Check: "close everything and reopen the device after the driver recovers"},
	EventPortActive:       {What: "a port became ACTIVE"},
	EventPortErr:          {What: "a port left ACTIVE (link down)", Check: "the cable, the switch, or the netdev's link (`ip link`)"},
	EventLIDChange:        {What: "a port's LID changed (InfiniBand)"},
	EventPKeyChange:       {What: "a port's P_Key table changed"},
	EventSMChange:         {What: "the subnet manager changed (InfiniBand)"},
	EventSRQErr:           {What: "an SRQ failed"},
	EventSRQLimitReached:  {What: "an SRQ's number of posted receives fell below its armed limit"},
	EventQPLastWQEReached: {What: "a QP attached to an SRQ went to ERR and will consume no more receives"},
	EventClientReregister: {What: "the SM asks clients to re-register (InfiniBand)"},
	EventGIDChange:        {What: "a port's GID table changed (an IP address came or went, on RoCE)", Check: "GID indexes may have moved: re-read them"},
	EventWQFatal:          {What: "a work queue failed"},
}

// ErrnoMeaning explains an errno as verbs calls return it (ibv_*(3) man
// pages; the kernel's ib_uverbs and ib_core return paths).
func ErrnoMeaning(e syscall.Errno) Meaning {
	m, ok := errnoMeanings[e]
	if !ok {
		m = Meaning{What: e.Error()}
	}
	m.Name = ErrnoName(e)
	if m.Name == "" {
		m.Name = e.Error()
	}
	return m
}

var errnoMeanings = map[syscall.Errno]Meaning{
	syscall.EINVAL: {What: "invalid argument: the kernel or provider rejected a value or combination",
		Causes: "for ibv_modify_qp: a transition that does not exist, a required attribute missing from the mask, an attribute not allowed in this step, or a value out of range (MTU above the port's, a bad GID index)",
		Check:  "`modify` checks all of these before sending and says which"},
	syscall.ENOMEM: {What: "out of memory, or of pinnable memory",
		Causes: "ibv_reg_mr beyond RLIMIT_MEMLOCK (ulimit -l); queues too large",
		Check:  "ulimit -l (unlimited for RDMA work), or run as root"},
	syscall.EBUSY: {What: "busy: the object is still in use",
		Causes: "destroying a PD with QPs/MRs/AHs, a CQ with QPs, a channel with CQs",
		Check:  "destroy the users first (`destroy X --cascade` does)"},
	syscall.ENOSYS: {What: "not implemented: this kernel has no RDMA user access",
		Check: "load ib_uverbs (and a driver or rdma_rxe), or use `verbscope lab`"},
	syscall.ENODEV: {What: "no such device", Check: "`verbscope devices`; was the device removed?"},
	syscall.EPERM:  {What: "not permitted", Check: "permissions on /dev/infiniband/uverbs*, CAP_NET_RAW for raw packet QPs"},
	syscall.EACCES: {What: "permission denied", Check: "permissions on /dev/infiniband/uverbs*"},
	syscall.EAGAIN: {What: "try again: a queue is full or a resource is temporarily exhausted",
		Causes: "ibv_post_send/recv with more WRs outstanding than the queue holds",
		Check:  "poll the CQ to retire completions before posting more"},
	syscall.ENOSPC:     {What: "no space: a device limit was reached", Check: "`verbscope res` for objects left by dead processes; the device's max_qp/max_mr"},
	syscall.EFAULT:     {What: "bad address: memory the kernel could not access"},
	syscall.EOPNOTSUPP: {What: "the device or provider does not support this"},
	syscall.ETIMEDOUT: {What: "timed out",
		Causes: "for ibv_modify_qp with an address vector on RoCE (INIT→RTR of RC/UC, SQD→SQD): the kernel asked ARP (or neighbour discovery) for the DGID's MAC address and nothing answered within a second (rdma_resolve_ip)",
		Check:  "the DGID is the peer's GID and the peer is up; `ping -I NETDEV ADDRESS` from the source GID's netdev; `modify` looks the DGID up before sending and says so"},
	syscall.ENETUNREACH: {What: "network unreachable",
		Causes: "for ibv_modify_qp with an address vector on RoCE: no route from the source GID's netdev to the DGID (the netdev is down or has no address of that family)",
		Check:  "`ip route get ADDRESS oif NETDEV`; the netdev's addresses; another sgid_index"},
}
