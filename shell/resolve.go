package shell

import (
	"context"
	"errors"
	"syscall"
	"time"

	"github.com/verbscope/verbscope/netpath"
	"github.com/verbscope/verbscope/rdma"
)

// resolveAV asks the session's resolver how the kernel will resolve the
// AV's DGID from its source GID, for rdma.Check's core.resolve rule; nil
// when the AV has no GRH or its source GID is not in the port's table
// (the checker's other rules speak then).
func (s *Shell) resolveAV(env *rdma.CheckEnv, ah *rdma.AHAttr) *rdma.AVResolution {
	if !ah.IsGlobal {
		return nil
	}
	src, populated, _ := env.GIDEntry(ah.GRH.SGIDIndex)
	if !populated || src.GID.IsIPv4() != ah.GRH.DGID.IsIPv4() || ah.GRH.DGID.IsZero() {
		return nil
	}
	r := s.opts.Resolver
	if r == nil {
		r = netpath.Resolver{}
	}
	// The kernel waits a second at most; the lookup, as long.
	ctx, cancel := context.WithTimeout(context.Background(), 2*netpath.KernelTimeout+time.Second)
	defer cancel()
	res := r.ResolveAV(ctx, src, ah.GRH.DGID)
	return &res
}

// resolveCause names the cause of a modify the kernel failed with the
// errno of address resolution, when the checker had not foreseen it (the
// neighbour answered the lookup, then not the kernel).
func resolveCause(err error, mask rdma.QPAttrMask) string {
	if mask&rdma.AttrAV == 0 {
		return ""
	}
	switch {
	case errors.Is(err, syscall.ETIMEDOUT):
		return "the kernel could not find the peer's MAC address: nothing answered ARP (or neighbour discovery) for the DGID within a second; check the DGID and that the peer is up and reachable from the source GID's netdev"
	case errors.Is(err, syscall.ENETUNREACH):
		return "the kernel found no route from the source GID's netdev to the DGID; check the netdev's addresses and routes, or pick another sgid_index"
	}
	return ""
}
