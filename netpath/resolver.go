package netpath

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"syscall"
	"time"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/verbscope/verbscope/rdma"
)

// KernelTimeout is how long rdma_addr_find_l2_eth_by_grh lets
// rdma_resolve_ip wait for the neighbour (drivers/infiniband/core/addr.c:
// 1000 ms) before the modify fails with ETIMEDOUT.
const KernelTimeout = 1000 * time.Millisecond

// Resolver is an rdma.AVResolver over rtnetlink (rtnetlink(7)). The zero
// value waits KernelTimeout for an unknown neighbour.
type Resolver struct {
	// Timeout replaces KernelTimeout (tests; a kernel built otherwise).
	Timeout time.Duration
	// Poll is how often the neighbour is read while it is asked; 0 is
	// 10 ms.
	Poll time.Duration
}

var _ rdma.AVResolver = Resolver{}

// addrOf is rdma_gid2ip (include/rdma/ib_addr.h): an IPv4-mapped GID is
// an IPv4 address, any other an IPv6 one.
func addrOf(g rdma.GID) netip.Addr { return netip.AddrFrom16(g).Unmap() }

// ResolveAV looks up how the kernel will resolve dgid from the source GID
// src at a modify, as rdma_resolve_ip does: the route leaving src's
// netdev, then the next hop's neighbour, asked for with one datagram
// when it is not known. A failure to ask the kernel leaves Known false.
func (r Resolver) ResolveAV(ctx context.Context, src rdma.GIDEntry, dgid rdma.GID) rdma.AVResolution {
	res := rdma.AVResolution{SGIDIndex: uint8(src.Index), DGID: dgid, Neighbour: "none"}
	from, to := addrOf(src.GID), addrOf(dgid)
	c, err := netlink.Dial(unix.NETLINK_ROUTE, nil)
	if err != nil {
		return res
	}
	defer c.Close()
	req, err := routeRequest(to, from, uint32(src.NetdevIfindex))
	if err != nil {
		return res
	}
	b, err := ask(c, unix.RTM_GETROUTE, req)
	var en syscall.Errno
	if errors.As(err, &en) {
		// ip_route_output_key's own answer is the modify's (addr4_resolve,
		// addr6_resolve return it unchanged).
		res.Known, res.Errno = true, en
		return res
	}
	if err != nil {
		return res
	}
	rt, err := parseRoute(b)
	if err != nil {
		return res
	}
	lb, err := ask(c, unix.RTM_GETLINK, linkRequest(rt.oif))
	if err != nil {
		return res
	}
	lk, err := parseLink(lb)
	if err != nil {
		return res
	}
	res.Known, res.Dev, res.Route = true, lk.name, describeRoute(to, from, rt, lk)
	// A local destination resolves through the loopback path
	// (rdma_set_src_addr_rcu, addr_resolve_neigh: IFF_LOOPBACK); a NOARP
	// device needs no neighbour.
	if rt.typ == unix.RTN_LOCAL || lk.flags&unix.IFF_LOOPBACK != 0 {
		res.Local = true
		return res
	}
	if lk.flags&unix.IFF_NOARP != 0 {
		return res
	}
	hop := to
	if rt.gateway.IsValid() {
		hop = rt.gateway
	}
	st, known := neighState(c, hop, rt.oif)
	res.Neighbour = fmt.Sprintf("%s dev %s %s", hop, lk.name, stateText(st, known))
	if known && st&nudValid != 0 {
		return res
	}
	return r.awaitNeighbour(ctx, c, res, from, to, hop, lk, rt.oif)
}

// awaitNeighbour is dst_fetch_ha's path: the next hop's neighbour is not
// valid, so the kernel sends a request and waits. It makes the kernel
// ask now, the same way, and watches for the answer up to r.Timeout.
func (r Resolver) awaitNeighbour(ctx context.Context, c *netlink.Conn, res rdma.AVResolution, from, to, hop netip.Addr, lk link, oif uint32) rdma.AVResolution {
	start := time.Now()
	if err := poke(from, to, lk.name, oif); err != nil {
		res.Known = false
		return res
	}
	timeout, poll := r.Timeout, r.Poll
	if timeout == 0 {
		timeout = KernelTimeout
	}
	if poll == 0 {
		poll = 10 * time.Millisecond
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for time.Since(start) < timeout {
		select {
		case <-ctx.Done():
			res.Known = false
			return res
		case <-tick.C:
		}
		if st, known := neighState(c, hop, oif); known && st&nudValid != 0 {
			res.Waited = time.Since(start)
			return res
		}
	}
	res.Errno = syscall.ETIMEDOUT
	return res
}

// neighState reads the neighbour entry of addr on the device; known is
// false when there is none (ENOENT) or it cannot be read.
func neighState(c *netlink.Conn, addr netip.Addr, oif uint32) (uint16, bool) {
	req, err := neighRequest(addr, oif)
	if err != nil {
		return 0, false
	}
	b, err := ask(c, unix.RTM_GETNEIGH, req)
	if err != nil {
		return 0, false
	}
	n, err := parseNeigh(b)
	return n.state, err == nil
}

// stateText is the neighbour state, or "none" without an entry.
func stateText(st uint16, known bool) string {
	if !known {
		return "none"
	}
	return nudName(st)
}

// describeRoute prints the route as `ip route get` does.
func describeRoute(to, from netip.Addr, rt route, lk link) string {
	s := to.String()
	if rt.typ == unix.RTN_LOCAL {
		s = "local " + s
	}
	if rt.gateway.IsValid() {
		s += " via " + rt.gateway.String()
	}
	src := from
	if rt.prefsrc.IsValid() {
		src = rt.prefsrc
	}
	return s + " dev " + lk.name + " src " + src.String()
}

// poke sends one empty UDP datagram to the discard port of to, from
// from, out of dev: the output path sends the ARP (or neighbour
// solicitation) request the modify would, and the datagram waits in the
// neighbour's queue for the answer.
func poke(from, to netip.Addr, dev string, oif uint32) error {
	fam := unix.AF_INET6
	if to.Is4() {
		fam = unix.AF_INET
	}
	fd, err := unix.Socket(fam, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("netpath: socket: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptString(fd, unix.SOL_SOCKET, unix.SO_BINDTODEVICE, dev); err != nil {
		return fmt.Errorf("netpath: bind to %s: %w", dev, err)
	}
	var local, remote unix.Sockaddr
	if to.Is4() {
		local, remote = &unix.SockaddrInet4{Addr: from.As4()}, &unix.SockaddrInet4{Addr: to.As4(), Port: 9}
	} else {
		// Link-local addresses need their interface (scope id).
		local, remote = &unix.SockaddrInet6{Addr: from.As16(), ZoneId: oif}, &unix.SockaddrInet6{Addr: to.As16(), Port: 9, ZoneId: oif}
	}
	if err := unix.Bind(fd, local); err != nil {
		return fmt.Errorf("netpath: bind to %s: %w", from, err)
	}
	if err := unix.Sendto(fd, nil, unix.MSG_DONTWAIT, remote); err != nil && !errors.Is(err, unix.EAGAIN) {
		return fmt.Errorf("netpath: send to %s: %w", to, err)
	}
	return nil
}
