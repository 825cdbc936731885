//go:build linux && cgo

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

struct ibv_device **vs_get_device_list(int *num) { return ibv_get_device_list(num); }

int vs_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr) {
	return ibv_query_port(ctx, port, attr);
}

int vs_query_gid_ex(struct ibv_context *ctx, uint32_t port, uint32_t index, struct ibv_gid_entry *e) {
	return ibv_query_gid_ex(ctx, port, index, e, 0);
}

ssize_t vs_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries, size_t max) {
	return ibv_query_gid_table(ctx, entries, max, 0);
}

struct ibv_mr *vs_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access) {
	return ibv_reg_mr(pd, addr, length, access);
}

struct ibv_mw *vs_alloc_mw(struct ibv_pd *pd, int type) { return ibv_alloc_mw(pd, (enum ibv_mw_type)type); }

int vs_dealloc_mw(struct ibv_mw *mw) { return ibv_dealloc_mw(mw); }

int vs_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, uint64_t wr_id, unsigned int send_flags,
	       struct ibv_mr *mr, uint64_t addr, uint64_t length, unsigned int access) {
	struct ibv_mw_bind b;
	memset(&b, 0, sizeof b);
	b.wr_id = wr_id;
	b.send_flags = send_flags;
	b.bind_info.mr = mr;
	b.bind_info.addr = addr;
	b.bind_info.length = length;
	b.bind_info.mw_access_flags = access;
	return ibv_bind_mw(qp, mw, &b);
}

// build_send_wr fills one ibv_send_wr from its flat description; only
// the union members the opcode uses are set, the rest stay zero.
static void build_send_wr(struct ibv_send_wr *w, const struct vs_send_wr *in, struct ibv_sge *sg) {
	memset(w, 0, sizeof *w);
	w->wr_id = in->wr_id;
	w->sg_list = in->num_sge ? sg : NULL;
	w->num_sge = (int)in->num_sge;
	w->opcode = (enum ibv_wr_opcode)in->opcode;
	w->send_flags = in->send_flags;
	switch (in->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		w->imm_data = htobe32(in->imm);
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		w->invalidate_rkey = in->imm;
		break;
	}
	switch (in->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		w->wr.rdma.remote_addr = in->remote_addr;
		w->wr.rdma.rkey = in->rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		w->wr.atomic.remote_addr = in->remote_addr;
		w->wr.atomic.compare_add = in->compare_add;
		w->wr.atomic.swap = in->swap;
		w->wr.atomic.rkey = in->rkey;
		break;
	case IBV_WR_BIND_MW:
		w->bind_mw.mw = in->mw;
		w->bind_mw.rkey = in->rkey;
		w->bind_mw.bind_info.mr = in->bind_mr;
		w->bind_mw.bind_info.addr = in->bind_addr;
		w->bind_mw.bind_info.length = in->bind_length;
		w->bind_mw.bind_info.mw_access_flags = in->bind_access;
		break;
	}
	if (in->ah) { // UD sends
		w->wr.ud.ah = in->ah;
		w->wr.ud.remote_qpn = in->remote_qpn;
		w->wr.ud.remote_qkey = in->remote_qkey;
	}
}

int vs_post_send(struct ibv_qp *qp, const struct vs_send_wr *in, int n,
		 struct ibv_sge *sges, struct ibv_send_wr *chain, int *bad) {
	struct ibv_send_wr *bad_wr = NULL;
	int i, rc;
	for (i = 0; i < n; i++) {
		build_send_wr(&chain[i], &in[i], sges);
		sges += in[i].num_sge;
		chain[i].next = i + 1 < n ? &chain[i + 1] : NULL;
	}
	*bad = -1;
	rc = ibv_post_send(qp, chain, &bad_wr);
	if (rc && bad_wr)
		*bad = (int)(bad_wr - chain);
	return rc;
}

// build_recv_chain links n receive requests in chain.
static void build_recv_chain(const struct vs_recv_wr *in, int n, struct ibv_sge *sges, struct ibv_recv_wr *chain) {
	int i;
	for (i = 0; i < n; i++) {
		chain[i].wr_id = in[i].wr_id;
		chain[i].sg_list = in[i].num_sge ? sges : NULL;
		chain[i].num_sge = (int)in[i].num_sge;
		chain[i].next = i + 1 < n ? &chain[i + 1] : NULL;
		sges += in[i].num_sge;
	}
}

int vs_post_recv(struct ibv_qp *qp, const struct vs_recv_wr *in, int n,
		 struct ibv_sge *sges, struct ibv_recv_wr *chain, int *bad) {
	struct ibv_recv_wr *bad_wr = NULL;
	int rc;
	build_recv_chain(in, n, sges, chain);
	*bad = -1;
	rc = ibv_post_recv(qp, chain, &bad_wr);
	if (rc && bad_wr)
		*bad = (int)(bad_wr - chain);
	return rc;
}

int vs_post_srq_recv(struct ibv_srq *srq, const struct vs_recv_wr *in, int n,
		     struct ibv_sge *sges, struct ibv_recv_wr *chain, int *bad) {
	struct ibv_recv_wr *bad_wr = NULL;
	int rc;
	build_recv_chain(in, n, sges, chain);
	*bad = -1;
	rc = ibv_post_srq_recv(srq, chain, &bad_wr);
	if (rc && bad_wr)
		*bad = (int)(bad_wr - chain);
	return rc;
}

int vs_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *scratch, struct vs_wc *out) {
	int i, got = ibv_poll_cq(cq, n, scratch);
	for (i = 0; i < got; i++) {
		const struct ibv_wc *w = &scratch[i];
		struct vs_wc *o = &out[i];
		o->wr_id = w->wr_id;
		o->status = w->status;
		o->opcode = w->opcode;
		o->vendor_err = w->vendor_err;
		o->byte_len = w->byte_len;
		o->imm = (w->wc_flags & IBV_WC_WITH_IMM) ? be32toh(w->imm_data) : 0;
		o->inv_rkey = (w->wc_flags & IBV_WC_WITH_INV) ? w->invalidated_rkey : 0;
		o->qp_num = w->qp_num;
		o->src_qp = w->src_qp;
		o->wc_flags = w->wc_flags;
		o->pkey_index = w->pkey_index;
		o->slid = w->slid;
		o->sl = w->sl;
		o->dlid_path_bits = w->dlid_path_bits;
	}
	return got;
}

int vs_poll_cq_spin(struct ibv_cq *cq, int n, struct ibv_wc *scratch, struct vs_wc *out, int spins, int yield_every) {
	int i, got = 0;
	for (i = 0; i < spins; i++) {
		got = vs_poll_cq(cq, n, scratch, out);
		if (got != 0)
			break;
		if (yield_every > 0 && i % yield_every == yield_every - 1)
			sched_yield();
	}
	return got;
}

int vs_post_send_spin(struct ibv_qp *qp, const struct vs_send_wr *in, int n, struct ibv_sge *sges,
		      struct ibv_send_wr *chain, int *bad, struct ibv_cq *cq, int max, struct ibv_wc *scratch,
		      struct vs_wc *out, int spins, int yield_every, int *post_rc) {
	*post_rc = vs_post_send(qp, in, n, sges, chain, bad);
	if (*post_rc)
		return 0;
	return vs_poll_cq_spin(cq, max, scratch, out, spins, yield_every);
}

int vs_req_notify_cq(struct ibv_cq *cq, int solicited_only) { return ibv_req_notify_cq(cq, solicited_only); }

// vs_cq_state is each CQ's cq_context: its unacknowledged events.
struct vs_cq_state {
	pthread_mutex_t mu;
	unsigned int unacked;
	int dying; // destroy has begun: acknowledge each event at once
};

// VS_ACK_BATCH is how many events a CQ collects before acknowledging.
#define VS_ACK_BATCH 16

struct ibv_cq *vs_create_cq(struct ibv_context *ctx, int cqe, struct ibv_comp_channel *ch, int vector) {
	struct ibv_cq *cq;
	struct vs_cq_state *st = calloc(1, sizeof *st);
	if (!st)
		return NULL; // errno is ENOMEM
	pthread_mutex_init(&st->mu, NULL);
	cq = ibv_create_cq(ctx, cqe, st, ch, vector);
	if (!cq) {
		int saved = errno;
		pthread_mutex_destroy(&st->mu);
		free(st);
		errno = saved;
	}
	return cq;
}

int vs_destroy_cq(struct ibv_cq *cq) {
	struct vs_cq_state *st = cq->cq_context;
	int rc;
	pthread_mutex_lock(&st->mu);
	if (st->unacked)
		ibv_ack_cq_events(cq, st->unacked);
	st->unacked = 0;
	st->dying = 1;
	pthread_mutex_unlock(&st->mu);
	rc = ibv_destroy_cq(cq);
	if (rc == 0) {
		// ibv_destroy_cq returned only after every event read was
		// acknowledged, so no vs_get_cq_event still uses st.
		pthread_mutex_destroy(&st->mu);
		free(st);
	} else {
		pthread_mutex_lock(&st->mu);
		st->dying = 0;
		pthread_mutex_unlock(&st->mu);
	}
	return rc;
}

int vs_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq) {
	void *cq_ctx;
	return ibv_get_cq_event(ch, cq, &cq_ctx) ? -1 : 0;
}

int vs_ack_cq_event(struct ibv_cq *cq) {
	struct vs_cq_state *st = cq->cq_context;
	unsigned int ack = 0;
	int dying;
	pthread_mutex_lock(&st->mu);
	dying = st->dying;
	if (dying) {
		ack = 1; // vs_destroy_cq waits in ibv_destroy_cq for this one
	} else if (++st->unacked >= VS_ACK_BATCH) {
		ack = st->unacked;
		st->unacked = 0;
	}
	pthread_mutex_unlock(&st->mu);
	// From here st (and cq, once dying) may be freed by vs_destroy_cq as
	// soon as the acknowledgement lets ibv_destroy_cq return; cq itself
	// stays valid for the call, which libibverbs makes under its own lock
	// before it signals the destroyer.
	if (ack)
		ibv_ack_cq_events(cq, ack);
	return dying;
}

int vs_get_async_event(struct ibv_context *ctx, struct ibv_async_event *ev, struct vs_async_event *out) {
	memset(out, 0, sizeof *out);
	if (ibv_get_async_event(ctx, ev))
		return -1;
	out->type = ev->event_type;
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR:
		out->cq = ev->element.cq;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		out->qp = ev->element.qp;
		out->qp_num = ev->element.qp->qp_num;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		out->srq = ev->element.srq;
		break;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		out->port = ev->element.port_num;
		break;
	default: // DEVICE_FATAL names no element; WQ_FATAL names a WQ, which verbscope does not create
		break;
	}
	return 0;
}

void vs_ack_async_event(struct ibv_async_event *ev) { ibv_ack_async_event(ev); }

int vs_set_nonblock(int fd) {
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0)
		return -1;
	return fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}
