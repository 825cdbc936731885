/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel types trace.bpf.c reads, trimmed to the members it uses.
 *
 * Written from Linux 6.1's BTF as bpftool prints it
 *   bpftool btf dump file /sys/kernel/btf/ib_core format c
 * (types of include/rdma/ib_verbs.h, include/rdma/restrack.h,
 * include/uapi/rdma/ib_user_verbs.h, drivers/infiniband/core/cma_priv.h).
 * Every struct is preserve_access_index: clang records each member access
 * as a CO-RE relocation and cilium/ebpf moves it to the running kernel's
 * offset at load time (it searches vmlinux and every module's BTF), so
 * neither the order nor the full list of members matters here, only the
 * names and kinds. Integer members are read with
 * BPF_CORE_READ_BITFIELD_PROBED, which also follows a member whose size
 * changed between kernels (port_num was u8 before 5.13).
 */
#ifndef VERBSCOPE_IB_H
#define VERBSCOPE_IB_H

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int s32;
typedef unsigned long long u64;
typedef long long s64;

typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;
typedef s32 __s32;
typedef s64 __s64;
typedef u16 __be16;
typedef u32 __be32;
typedef u64 __be64;
typedef u32 __wsum;
typedef _Bool bool;

#define true 1
#define false 0

/* CO-RE matches enums by name, so each member keeps its kernel type. */
enum ib_qp_state { IB_QPS_RESET };
enum ib_mtu { IB_MTU_256 = 1 };
enum ib_mig_state { IB_MIG_MIGRATED };
enum ib_qp_type { IB_QPT_SMI };
enum ib_sig_type { IB_SIGNAL_ALL_WR };
enum ib_event_type { IB_EVENT_CQ_ERR };
enum ib_gid_type { IB_GID_TYPE_IB };
enum rdma_ah_attr_type { RDMA_AH_ATTR_TYPE_UNDEFINED, RDMA_AH_ATTR_TYPE_IB, RDMA_AH_ATTR_TYPE_ROCE };
enum rdma_restrack_type {
	RDMA_RESTRACK_PD = 0,
	RDMA_RESTRACK_CQ = 1,
	RDMA_RESTRACK_QP = 2,
	RDMA_RESTRACK_CM_ID = 3,
	RDMA_RESTRACK_MR = 4,
	RDMA_RESTRACK_CTX = 5,
	RDMA_RESTRACK_COUNTER = 6,
	RDMA_RESTRACK_SRQ = 7,
};

/* The few values of include/uapi/linux/bpf.h the programs name; the
 * whole header would drag in the host's <linux/types.h>. */
enum { BPF_MAP_TYPE_PERCPU_ARRAY = 6, BPF_MAP_TYPE_LRU_HASH = 9, BPF_MAP_TYPE_RINGBUF = 27 };
enum { BPF_ANY = 0 };

#define PAI __attribute__((preserve_access_index))

struct ib_device {
	char name[64];
} PAI;

union ib_gid {
	u8 raw[16];
} PAI;

struct ib_gid_attr {
	union ib_gid gid;
	u16 index;
} PAI;

struct ib_global_route {
	const struct ib_gid_attr *sgid_attr;
	union ib_gid dgid;
	u32 flow_label;
	u8 sgid_index;
	u8 hop_limit;
	u8 traffic_class;
} PAI;

struct roce_ah_attr {
	u8 dmac[6];
} PAI;

struct ib_ah_attr {
	u16 dlid;
	u8 src_path_bits;
} PAI;

struct rdma_ah_attr {
	struct ib_global_route grh;
	u8 sl;
	u8 static_rate;
	u32 port_num;
	u8 ah_flags;
	enum rdma_ah_attr_type type;
	union {
		struct ib_ah_attr ib;
		struct roce_ah_attr roce;
	};
} PAI;

struct ib_qp_cap {
	u32 max_send_wr;
	u32 max_recv_wr;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline_data;
} PAI;

struct ib_qp_attr {
	enum ib_qp_state qp_state;
	enum ib_qp_state cur_qp_state;
	enum ib_mtu path_mtu;
	enum ib_mig_state path_mig_state;
	u32 qkey;
	u32 rq_psn;
	u32 sq_psn;
	u32 dest_qp_num;
	int qp_access_flags;
	struct ib_qp_cap cap;
	struct rdma_ah_attr ah_attr;
	struct rdma_ah_attr alt_ah_attr;
	u16 pkey_index;
	u16 alt_pkey_index;
	u8 en_sqd_async_notify;
	u8 sq_draining;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;
	u8 min_rnr_timer;
	u32 port_num;
	u8 timeout;
	u8 retry_cnt;
	u8 rnr_retry;
	u32 alt_port_num;
	u8 alt_timeout;
	u32 rate_limit;
} PAI;

struct rdma_restrack_entry {
	enum rdma_restrack_type type;
	bool user;
	u32 id;
} PAI;

struct ib_qp {
	struct ib_device *device;
	const struct ib_gid_attr *av_sgid_attr;
	u32 qp_num;
	enum ib_qp_type qp_type;
	u32 port;
	struct rdma_restrack_entry res;
} PAI;

struct ib_qp_init_attr {
	struct ib_qp_cap cap;
	enum ib_sig_type sq_sig_type;
	enum ib_qp_type qp_type;
	u32 create_flags;
	u32 port_num;
} PAI;

struct ib_pd {
	struct ib_device *device;
	struct rdma_restrack_entry res;
} PAI;

struct ib_cq {
	struct ib_device *device;
	int cqe;
	struct rdma_restrack_entry res;
} PAI;

struct ib_mr {
	struct ib_device *device;
	u32 lkey;
	u32 rkey;
	u64 iova;
	u64 length;
	struct rdma_restrack_entry res;
} PAI;

struct ib_srq {
	struct ib_device *device;
	struct rdma_restrack_entry res;
} PAI;

struct ib_ucontext {
	struct ib_device *device;
	struct rdma_restrack_entry res;
} PAI;

struct rdma_cm_id {
	struct ib_device *device;
} PAI;

struct rdma_id_private {
	struct rdma_cm_id id;
	struct rdma_restrack_entry res;
} PAI;

struct ib_event {
	struct ib_device *device;
	union {
		struct ib_qp *qp;
	} element;
	enum ib_event_type event;
} PAI;

struct ib_udata;
struct ib_uqp_object;
struct ib_pd;
struct file;

/* The first bytes of a write() to /dev/infiniband/uverbsN and of its
 * RDMA_VERBS_IOCTL argument (include/uapi/rdma/ib_user_verbs.h,
 * include/uapi/rdma/rdma_user_ioctl_cmds.h); read from user memory, so
 * their layout is the ABI and needs no relocation. */
struct ib_uverbs_cmd_hdr {
	__u32 command;
	__u16 in_words;
	__u16 out_words;
};

struct ib_uverbs_ioctl_hdr {
	__u16 length;
	__u16 object_id;
	__u16 method_id;
	__u16 num_attrs;
};

#endif
