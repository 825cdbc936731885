package sysfsmon

import (
	"net"
	"slices"
	"strings"
)

// gidRecheck is how many full ticks may reuse a GID table before one
// reads it again whatever the signs say (an SM that moves an IB
// subnet prefix does not change the port's state).
const gidRecheck = 30

// gidSettle is how many full ticks after a change read the tables
// again: roce_gid_mgmt updates them from a work queue, so the first
// reading after an address change may still see the old table.
const gidSettle = 2

// gidWatch decides, on each full tick, whether the GID tables must be
// read again. A RoCE port's table is filled by roce_gid_mgmt
// (drivers/infiniband/core/roce_gid_mgmt.c) from its netdevs' addresses
// and an IB port's follows the port's state (the SM sets its prefix);
// reading rxe's 1,024 entries is slow under emulation
// (docs/performance.md), so while the host's addresses and the ports'
// states stay the same the last tables are kept.
type gidWatch struct {
	addrs   func() (string, error)
	last    string
	settle  int // full ticks that still read after a change
	reused  int // full ticks since the tables were last read
	started bool
}

// fresh reports whether this full tick must read the tables.
func (w *gidWatch) fresh() bool {
	a, err := w.addrs()
	changed := err != nil || !w.started || a != w.last
	w.last, w.started = a, true
	if changed {
		w.settle = gidSettle
	}
	if w.settle > 0 || w.reused >= gidRecheck {
		w.settle = max(w.settle-1, 0)
		w.reused = 0
		return true
	}
	w.reused++
	return false
}

// hostAddrs lists every interface address of the host (RTM_GETADDR),
// sorted, as one string that changes when any address does.
func hostAddrs() (string, error) {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return "", err
	}
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.String()
	}
	slices.Sort(s)
	return strings.Join(s, " "), nil
}

// keepGIDs copies the GID table of the same port in prev into p, unless
// the port's state moved since: then the table is read again.
func keepGIDs(prev []Device, dev string, p *Port) bool {
	for i := range prev {
		if prev[i].Name != dev {
			continue
		}
		for _, q := range prev[i].Ports {
			if q.Port == p.Port && q.State == p.State && q.LinkLayer == p.LinkLayer {
				p.GIDTableLen, p.GIDs, p.RecommendedGIDIndex = q.GIDTableLen, q.GIDs, q.RecommendedGIDIndex
				if p.Netdev == "" {
					p.Netdev = q.Netdev
				}
				return true
			}
		}
	}
	return false
}
