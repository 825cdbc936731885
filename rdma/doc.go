// Package rdma is the RDMA vocabulary every part shares: the enums of
// verbs.h and include/rdma/ib_verbs.h (QP states and types, port and
// physical states, MTU, link layer, node type, GID type, access flags,
// the QP attribute mask, work request and completion opcodes, completion
// statuses, async events), the object kinds, and the kernel's QP state
// machine as data: the transitions with their required and optional
// attributes (qp_state_table in drivers/infiniband/core/verbs.c), Check
// (the kernel's verdict for a modify, ib_modify_qp_is_ok and the rules
// around it), rc_pingpong's defaults, and what each state allows.
//
// StateDiagram draws the state machine, the one drawing the shell's
// `diagram`, the dashboard's QP view and the course's lesson pane show.
//
// It is pure Go with only the standard library, no cgo and no I/O, so the
// dashboard can draw the state machine without the cgo verbs package.
// Each enum prints as libibverbs' tools print it (String); where iproute2's
// rdma tool spells a value differently, IPRoute2 gives its spelling. A
// value no table names prints as Unknown does: "UNKNOWN(9)".
package rdma
