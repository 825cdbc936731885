package netpath

import (
	"context"
	"net"
	"testing"

	"github.com/verbscope/verbscope/rdma"
)

// On this host's own kernel: 127.0.0.1 from 127.0.0.1 on lo is a local
// route, resolved without a neighbour, as rdma_resolve_ip's loopback
// path does.
func TestResolveLoopbackOnThisHost(t *testing.T) {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatalf("this host has no lo: %v", err)
	}
	var g rdma.GID
	copy(g[:], net.ParseIP("127.0.0.1").To16())
	res := Resolver{}.ResolveAV(context.Background(), rdma.GIDEntry{GID: g, Index: 3, NetdevIfindex: lo.Index}, g)
	if !res.Known || res.Errno != 0 || !res.Local || res.Dev != "lo" || res.SGIDIndex != 3 {
		t.Errorf("ResolveAV(127.0.0.1) = %+v, want a known local resolution on lo", res)
	}
	if res.Route != "local 127.0.0.1 dev lo src 127.0.0.1" {
		t.Errorf("route %q", res.Route)
	}
}
