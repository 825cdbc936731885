// Package netpath looks up, before a modify, how the kernel will resolve
// an RDMA address vector's destination GID to the peer's MAC address: for
// a connected QP on RoCE, _ib_modify_qp → ib_resolve_eth_dmac →
// rdma_resolve_ip (drivers/infiniband/core/verbs.c, addr.c) takes the
// route from the source GID's netdev to the DGID (RTM_GETROUTE here, the
// same ip_route_output lookup) and the next hop's neighbour
// (RTM_GETNEIGH), and when the neighbour is not known asks with ARP or
// neighbour discovery for at most a second: ENETUNREACH without a route,
// ETIMEDOUT when nothing answers.
//
// When the neighbour is not known, Resolver makes the kernel ask, as the
// modify would, by sending one empty UDP datagram to the discard port
// from the source address on that netdev, and watches the neighbour for
// the kernel's second. The answer (an rdma.AVResolution) goes into
// rdma.CheckEnv.Resolution; rdma stays free of I/O.
package netpath
