// C helpers for what cgo cannot call directly: the macros and static
// inline functions of <infiniband/verbs.h>, and the data path, where one
// call handles a whole batch so the cgo crossing is paid once per batch.
#ifndef VERBSCOPE_SHIM_H
#define VERBSCOPE_SHIM_H
#include <infiniband/verbs.h>

// vs_get_device_list wraps the ibv_get_device_list macro (it registers
// static providers when those are compiled in).
struct ibv_device **vs_get_device_list(int *num);

// vs_query_port wraps the ibv_query_port macro.
int vs_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);

// vs_query_gid_ex and vs_query_gid_table wrap the static inline functions.
int vs_query_gid_ex(struct ibv_context *ctx, uint32_t port, uint32_t index, struct ibv_gid_entry *e);
ssize_t vs_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries, size_t max);

// vs_reg_mr wraps the ibv_reg_mr macro.
struct ibv_mr *vs_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);

// Memory windows: ibv_alloc_mw, ibv_dealloc_mw and ibv_bind_mw are inline.
struct ibv_mw *vs_alloc_mw(struct ibv_pd *pd, int type);
int vs_dealloc_mw(struct ibv_mw *mw);
int vs_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, uint64_t wr_id, unsigned int send_flags,
	       struct ibv_mr *mr, uint64_t addr, uint64_t length, unsigned int access);

// vs_send_wr is one send work request without verbs.h's unions, so Go
// can fill it field by field in C memory; vs_post_send turns an array of
// them into the ibv_send_wr chain ibv_post_send(3) takes.
struct vs_send_wr {
	uint64_t wr_id;
	uint64_t remote_addr;	// RDMA and atomics
	uint64_t compare_add;	// atomics
	uint64_t swap;		// ATOMIC_CMP_AND_SWP
	uint64_t bind_addr;	// BIND_MW: the window's start and length
	uint64_t bind_length;
	struct ibv_ah *ah;	// UD
	struct ibv_mw *mw;	// BIND_MW
	struct ibv_mr *bind_mr;	// BIND_MW
	uint32_t opcode;
	uint32_t send_flags;
	uint32_t imm;		// host order; the rkey to invalidate for *_INV
	uint32_t rkey;		// RDMA and atomics; the window's new rkey for BIND_MW
	uint32_t remote_qpn;	// UD
	uint32_t remote_qkey;	// UD
	uint32_t bind_access;	// BIND_MW
	uint32_t num_sge;	// taken in order from the SGE array
};

// vs_post_send posts n work requests in one ibv_post_send call, building
// the chain in the caller's chain array (n entries) with SGEs from sges.
// On failure *bad is the index of the refused request.
int vs_post_send(struct ibv_qp *qp, const struct vs_send_wr *in, int n,
		 struct ibv_sge *sges, struct ibv_send_wr *chain, int *bad);

// vs_recv_wr is one receive work request; vs_post_recv and
// vs_post_srq_recv post n of them in one call, like vs_post_send.
struct vs_recv_wr {
	uint64_t wr_id;
	uint32_t num_sge;
};
int vs_post_recv(struct ibv_qp *qp, const struct vs_recv_wr *in, int n,
		 struct ibv_sge *sges, struct ibv_recv_wr *chain, int *bad);
int vs_post_srq_recv(struct ibv_srq *srq, const struct vs_recv_wr *in, int n,
		     struct ibv_sge *sges, struct ibv_recv_wr *chain, int *bad);

// vs_wc is struct ibv_wc without its union and with the immediate data
// already in host byte order.
struct vs_wc {
	uint64_t wr_id;
	uint32_t status;
	uint32_t opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm;		// host order, valid with IBV_WC_WITH_IMM
	uint32_t inv_rkey;	// valid with IBV_WC_WITH_INV
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags;
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
};

// vs_poll_cq polls up to n completions into out, using scratch (n
// entries) for ibv_poll_cq(3) itself. It returns the count or a negative
// value on error.
int vs_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *scratch, struct vs_wc *out);

// vs_poll_cq_spin polls like vs_poll_cq until at least one completion
// arrives or spins empty polls were made, calling sched_yield(2) every
// yield_every empty polls: busy waiting stays in C (no cgo crossing per
// empty poll), and the yield lets a kernel thread that shares this CPU
// (ksoftirqd running rxe's deferred work) make the progress we wait for.
int vs_poll_cq_spin(struct ibv_cq *cq, int n, struct ibv_wc *scratch, struct vs_wc *out, int spins, int yield_every);

// vs_post_send_spin is vs_post_send followed, when the post succeeds
// (*post_rc 0), by vs_poll_cq_spin on cq: a ping-pong's step in one call.
int vs_post_send_spin(struct ibv_qp *qp, const struct vs_send_wr *in, int n, struct ibv_sge *sges,
		      struct ibv_send_wr *chain, int *bad, struct ibv_cq *cq, int max, struct ibv_wc *scratch,
		      struct vs_wc *out, int spins, int yield_every, int *post_rc);

// vs_req_notify_cq wraps the inline ibv_req_notify_cq(3).
int vs_req_notify_cq(struct ibv_cq *cq, int solicited_only);

// vs_create_cq creates a CQ whose cq_context counts the completion
// events read but not yet acknowledged; vs_destroy_cq acknowledges them
// before ibv_destroy_cq(3), which otherwise waits for them forever.
struct ibv_cq *vs_create_cq(struct ibv_context *ctx, int cqe, struct ibv_comp_channel *ch, int vector);
int vs_destroy_cq(struct ibv_cq *cq);

// vs_get_cq_event reads one completion event from a channel whose fd is
// non-blocking; it returns 0, or -1 with errno (EAGAIN: none yet). The
// event is the caller's until it calls vs_ack_cq_event: until then
// ibv_destroy_cq(3) waits, so *cq stays allocated (its address cannot
// be freed and reused by another CQ) while the caller resolves it.
int vs_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq);

// vs_ack_cq_event counts the event for acknowledgement, in batches
// (ibv_ack_cq_events(3) is a lock round trip), or acknowledges it at
// once when the CQ is being destroyed; it returns 1 then (the event is
// for a CQ that is going: drop it), else 0. It decides under the CQ's
// state mutex and acknowledges after unlocking: an acknowledgement may
// let vs_destroy_cq finish and free that mutex.
int vs_ack_cq_event(struct ibv_cq *cq);

// vs_async_event is an async event's fields, copied out before the event
// is acknowledged.
struct vs_async_event {
	int type;
	int port;
	uint32_t qp_num;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
};

// vs_get_async_event reads one async event (non-blocking fd) into ev and
// copies its fields into out. It does not acknowledge it: until
// vs_ack_async_event(ev), ibv_destroy_qp (cq, srq) of the object it
// names cannot return (ibv_ack_async_event(3)), so the object's address
// still names it, not one created after it: the caller resolves the
// address, then acknowledges, at once. Returns 0, or -1 with errno
// (EAGAIN: none pending).
int vs_get_async_event(struct ibv_context *ctx, struct ibv_async_event *ev, struct vs_async_event *out);

// vs_ack_async_event acknowledges an event vs_get_async_event read.
void vs_ack_async_event(struct ibv_async_event *ev);

// vs_set_nonblock puts fd into O_NONBLOCK mode.
int vs_set_nonblock(int fd);

#endif
