// C helpers for what cgo cannot call directly: the macros and static
// inline functions of <infiniband/verbs.h>.
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

#endif
