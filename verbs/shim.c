//go:build linux && cgo

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
