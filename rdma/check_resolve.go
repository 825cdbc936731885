package rdma

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// AVResolution is what a resolver found out, before a modify, about how
// the kernel will resolve an address vector's DGID to the peer's MAC
// address: for a connected QP on RoCE, _ib_modify_qp calls
// ib_resolve_eth_dmac → rdma_addr_find_l2_eth_by_grh → rdma_resolve_ip
// (drivers/infiniband/core/verbs.c, addr.c), which takes the route from
// the source GID's netdev and then the neighbour, asking with ARP (IPv6:
// neighbour discovery) for up to a second.
type AVResolution struct {
	// SGIDIndex and DGID are the address vector the resolver looked at;
	// Check uses the resolution only for an AV with the same two.
	SGIDIndex uint8
	DGID      GID
	// Known is false when the resolver could not ask the kernel (no
	// netlink, no such netdev): Check then predicts nothing from it.
	Known bool
	// Errno is how rdma_resolve_ip ends: 0 (resolved), ENETUNREACH (no
	// route from the netdev), ETIMEDOUT (nothing answered the neighbour
	// request within the kernel's 1000 ms), or another errno the route
	// lookup returned.
	Errno syscall.Errno
	// Dev is the netdev the route leaves by ("veth0").
	Dev string
	// Route is the route the kernel takes, as `ip route get DST from SRC
	// oif DEV` shows it ("10.0.0.99 dev veth0 src 10.0.0.1"); empty
	// without one.
	Route string
	// Neighbour is the next hop's neighbour entry before the modify, as
	// `ip neigh` names its state ("10.0.0.99 dev veth0 FAILED", "none").
	Neighbour string
	// Waited is how long the neighbour took to answer when it was not
	// yet known: the modify will block about as long. Zero when the MAC
	// was known (or no neighbour is involved).
	Waited time.Duration
	// Local is true when the DGID is an address of this host: the
	// kernel resolves it without the network.
	Local bool
}

// AVResolver looks up how the kernel will resolve dgid from the source
// GID src (a netpath.Resolver does, over rtnetlink). It does I/O, so
// Check never calls one: its caller does, and passes the answer in
// CheckEnv.Resolution.
type AVResolver interface {
	ResolveAV(ctx context.Context, src GIDEntry, dgid GID) AVResolution
}

// resolvesDMAC reports whether this modify makes the kernel resolve the
// AV's DGID: an AV with a GRH, on RoCE, for a connected QP
// (_ib_modify_qp), from a populated source GID of the DGID's address
// family (the rules before this one refuse the rest), to a unicast DGID
// that is not a RoCE v1 link-local one (ib_resolve_eth_dmac,
// ib_resolve_unicast_gid_dmac).
func (c *checkCtx) resolvesDMAC() (GIDEntry, bool) {
	if !c.has(AttrAV) || !c.hasAttr || !c.roce || !connectedType(c.typ) || !c.attr.AH.IsGlobal {
		return GIDEntry{}, false
	}
	src, populated, _ := c.gidEntry(c.attr.AH.GRH.SGIDIndex)
	dgid := c.attr.AH.GRH.DGID
	if !populated || dgid.IsIPv4() != src.GID.IsIPv4() || dgid.IsZero() {
		return GIDEntry{}, false
	}
	ip := dgid.IP()
	if ip.IsMulticast() || (src.Type == GIDTypeRoCEv1 && ip.IsLinkLocalUnicast()) {
		return GIDEntry{}, false
	}
	return src, true
}

// ruleResolve: the kernel resolves the DGID to a MAC address now and
// fails the modify when it cannot: ENETUNREACH without a route from the
// source GID's netdev, ETIMEDOUT when nothing answers ARP within a
// second. Without a resolution in CheckEnv (or for another AV) the rule
// says nothing.
func ruleResolve(c *checkCtx) []Finding {
	src, ok := c.resolvesDMAC()
	r := c.env.Resolution
	if !ok || r == nil || !r.Known || r.DGID != c.attr.AH.GRH.DGID || r.SGIDIndex != c.attr.AH.GRH.SGIDIndex {
		return nil
	}
	dst := c.attr.AH.GRH.DGID
	how := "ARP"
	if !dst.IsIPv4() {
		how = "neighbour discovery"
	}
	why := fmt.Sprintf("for a connected QP on RoCE the kernel finds the peer's MAC address at this modify, through the IP stack: the route from the source GID's netdev to the DGID, then %s for the next hop, for at most a second", how)
	route := r.Route
	if route == "" {
		route = "no route"
	}
	switch r.Errno {
	case 0:
		if r.Waited > 0 {
			return note(AttrAV, fmt.Sprintf("the kernel will wait for %s before this modify returns: the neighbour %s was not known and answered after %s (%s)",
				how, dst, r.Waited.Round(time.Millisecond), route), why)
		}
		return nil
	case syscall.ETIMEDOUT:
		return withErrno(fail(AttrAV, fmt.Sprintf("nothing answers %s for the DGID %s (%s; neighbour %s): the kernel will wait a second and fail with ETIMEDOUT", how, dst, route, r.Neighbour),
			why+"; a peer that does not answer is not there (a wrong DGID), is down, or is on another network",
			fmt.Sprintf("check the DGID is the peer's GID (`verbscope gids` on the peer) and that it answers from here: ping -I %s %s", r.Dev, dst.IP())), r.Errno)
	case syscall.ENETUNREACH:
		return withErrno(fail(AttrAV, fmt.Sprintf("there is no route to the DGID %s from the source GID %d's netdev: the kernel fails with ENETUNREACH", dst, src.Index),
			why, "give the netdev an address and route on the peer's network, or use the source GID (sgid_index) of a netdev that reaches it: "+gidChoices(c)), r.Errno)
	}
	return withErrno(fail(AttrAV, fmt.Sprintf("the kernel's route lookup for the DGID %s fails with %s (%s)", dst, ErrnoText(r.Errno), route),
		why, "`ip route get "+dst.IP().String()+"` shows what the kernel sees"), r.Errno)
}

// withErrno sets the errno of a rule's findings.
func withErrno(f []Finding, en syscall.Errno) []Finding {
	for i := range f {
		f[i].Errno = en
	}
	return f
}
