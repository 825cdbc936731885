package trace

import (
	"syscall"
	"time"

	"github.com/verbscope/verbscope/rdma"
)

// Verb names what an event did, as -j prints it in "verb": the kernel's
// own name for the operation (ib_verbs.h, uverbs_cmd.c).
type Verb string

// The verbs trace reports.
const (
	VerbCreateQP     Verb = "create_qp"
	VerbModifyQP     Verb = "modify_qp"
	VerbDestroyQP    Verb = "destroy_qp"
	VerbAllocPD      Verb = "alloc_pd"
	VerbDeallocPD    Verb = "dealloc_pd"
	VerbCreateCQ     Verb = "create_cq"
	VerbDestroyCQ    Verb = "destroy_cq"
	VerbRegMR        Verb = "reg_mr"
	VerbDeregMR      Verb = "dereg_mr"
	VerbCreateSRQ    Verb = "create_srq"
	VerbDestroySRQ   Verb = "destroy_srq"
	VerbAllocContext Verb = "alloc_ucontext"
	VerbFreeContext  Verb = "dealloc_ucontext"
	VerbCreateCMID   Verb = "create_cm_id"
	VerbDestroyCMID  Verb = "destroy_cm_id"
	VerbAsyncEvent   Verb = "async_event"
)

// Stage says which kernel layer reported an event.
type Stage string

// Stages an event can come from.
const (
	// StageCore is ib_core (drivers/infiniband/core/verbs.c, restrack.c):
	// the call reached the core and, for QPs, the driver.
	StageCore Stage = "core"
	// StageUVerbs is a uverbs command handler
	// (drivers/infiniband/core/uverbs_cmd.c, uverbs_std_types_*.c) that
	// failed before the core was called: a bad handle, a malformed
	// command, a refusal of the handler itself.
	StageUVerbs Stage = "uverbs"
)

// Event is one control-path call the kernel saw, from any process.
type Event struct {
	Time time.Time
	// PID is the process (tgid), TID the thread that made the call.
	PID, TID int
	Comm     string
	// Dev is the RDMA device (rxe0); empty when the kernel has not bound
	// the object to one yet (an unresolved cm_id).
	Dev   string
	Verb  Verb
	Stage Stage
	// Handler is the uverbs handler that failed (StageUVerbs only).
	Handler string
	// QPN and QPType are set for QP verbs (HasQPN) and QP async events.
	HasQPN bool
	QPN    uint32
	QPType rdma.QPType
	// Ret is 0 or -errno; Errno is the errno (0 on success).
	Ret   int
	Errno syscall.Errno
	// User is true for an object of a user process (through uverbs),
	// false for a kernel ULP's.
	User bool

	// Mask and Attr are a modify's ib_qp_attr_mask and struct ib_qp_attr
	// (include/rdma/ib_verbs.h); only the fields Mask names are meant.
	Mask rdma.QPAttrMask
	Attr rdma.QPAttr
	// SGID is the QP's source GID after the modify (qp->av_sgid_attr),
	// zero when it has none.
	SGID rdma.GID
	// RouteHopLimit is the AV's hop limit after the modify: on RoCE the
	// kernel replaces the caller's with the route's (ib_resolve_eth_dmac).
	RouteHopLimit uint8
	// From is the QP's state before the modify, as trace last saw it;
	// FromKnown is false for a QP that changed state before trace started.
	From      rdma.QPState
	FromKnown bool
	// Check is rdma.Check's verdict on a modify that failed, nil
	// otherwise or when the QP's state before it is unknown.
	Check *rdma.Verdict

	// Cap is a create_qp's struct ib_qp_init_attr's. Port is the QP's
	// port: a create_qp's (ib_qp_init_attr, set for special QPs), and for
	// a successful modify the one it or an earlier modify set
	// (IB_QP_PORT), as the kernel's ib_qp.port has it; 0 before any.
	Cap  rdma.QPCap
	Port uint8

	// ObjID is the object's restrack id (pdn, cqn, mrn, srqn, ctxn,
	// cm-idn as rdma resource show prints them). Length is an MR's
	// length or a CQ's number of entries; IOVA, LKey and RKey an MR's.
	ObjID      uint32
	Length     uint64
	IOVA       uint64
	LKey, RKey uint32
	// Access is a reg_mr's access flags (ibv_reg_mr(3)), which struct
	// ib_mr does not keep: read from the driver's reg_user_mr when trace
	// hooked it (HasAccess; rxe_reg_user_mr in the lab).
	Access    rdma.AccessFlags
	HasAccess bool

	// AsyncEvent is a QP's async event (ib_uverbs_qp_event_handler).
	AsyncEvent rdma.EventType
}
