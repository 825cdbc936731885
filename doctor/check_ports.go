package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

// portText is "rxe0 port 1".
func portText(p sysfsmon.Port) string { return fmt.Sprintf("%s port %d", p.Device, p.Port) }

func portSrc(p sysfsmon.Port, file string) string {
	return fmt.Sprintf("%s/%s/ports/%d/%s", srcClassIB, p.Device, p.Port, file)
}

// checkPorts wants every port ACTIVE with its link up. A device with no
// active port fails; a down port next to an active one warns (a second
// port is often simply not cabled).
func checkPorts(f *Facts) Result {
	r := newResult()
	if len(f.Devices) == 0 {
		return r.na("there are no RDMA devices")
	}
	var fine []string
	for _, d := range f.Devices {
		up := slices.ContainsFunc(d.Ports, func(p sysfsmon.Port) bool { return p.State.Up() })
		if len(d.Ports) == 0 {
			r.judge(Fail, d.Name, "no ports", srcClassIB+"/"+d.Name+"/ports")
			r.problem(Fail, "%s has no ports", d.Name)
			continue
		}
		for _, p := range d.Ports {
			state := fmt.Sprintf("%s, %s", dash(p.StateName), dash(p.PhysStateName))
			src := portSrc(p, "state") + ", phys_state"
			if p.State.Up() && p.PhysStateName == "LinkUp" {
				r.judge(Pass, portText(p), state, src)
				fine = append(fine, portText(p))
				continue
			}
			v := Fail
			if up {
				v = Warn
			}
			r.judge(v, portText(p), state, src)
			if p.Netdev != "" {
				r.note(p.Netdev, "operstate "+dash(p.NetdevState), "/sys/class/net/"+p.Netdev+"/operstate")
			}
			portProblem(r, v, p)
		}
	}
	if r.worst == Pass {
		r.ok("%s ACTIVE, LinkUp", joinAnd(fine))
	}
	return r.done()
}

// portProblem says why a port is not ACTIVE and what to do, by link
// layer and state (enum ib_port_state, IB spec 14.2.5.6 PortPhysicalState).
func portProblem(r *result, v Verdict, p sysfsmon.Port) {
	what := fmt.Sprintf("%s is %s (%s)", portText(p), dash(p.StateName), dash(p.PhysStateName))
	switch {
	case p.StateName == "":
		r.problem(v, "%s: its state cannot be read", portText(p))
		r.fix("look at %s and dmesg: the driver reports no usable port state", portSrc(p, "state"))
	case p.LinkLayer == "Ethernet" && p.Netdev != "" && p.NetdevState != "up":
		r.problem(v, "%s: its netdev %s is %s", what, p.Netdev, dash(p.NetdevState))
		r.fix("ip link set %s up (a RoCE port follows its netdev)", p.Netdev)
	case p.LinkLayer == "Ethernet":
		r.problem(v, "%s: no Ethernet link", what)
		r.fix("check the cable and the switch port: ethtool %s shows the link", dash(p.Netdev))
	case p.StateName == "INIT" || p.StateName == "ARMED":
		r.problem(v, "%s: the link is up but no subnet manager has configured the port", what)
		r.fix("run a subnet manager on the fabric: systemctl start opensm on one node (it needs ib_umad), or enable the switch's SM; sminfo shows which SM answers")
	default:
		r.problem(v, "%s: no InfiniBand link", what)
		r.fix("check the cable, the switch port and the other end; ibstat shows the physical state")
	}
}

// checkGIDs wants GIDs on every active port and, on RoCE, a RoCE v2 GID
// of an IPv4 address: the one rc_pingpong -g and perftest -x want.
func checkGIDs(f *Facts) Result {
	r := newResult()
	if len(f.Devices) == 0 {
		return r.na("there are no RDMA devices")
	}
	var fine, skipped []string
	for _, d := range f.Devices {
		for _, p := range d.Ports {
			if !p.State.Up() {
				skipped = append(skipped, portText(p))
				continue
			}
			src := portSrc(p, "gids") + ", gid_attrs/types"
			var gids []string
			for _, g := range p.GIDs {
				s := fmt.Sprintf("%d %s", g.Index, g.Addr)
				if g.Type != "" {
					s += " " + g.Type
				}
				if g.Netdev != "" {
					s += " " + g.Netdev
				}
				gids = append(gids, s)
			}
			switch {
			case len(p.GIDs) == 0:
				r.judge(Fail, portText(p), "no GIDs", src)
				r.problem(Fail, "%s has an empty GID table", portText(p))
				if p.LinkLayer == "Ethernet" {
					r.fix("give %s an address (ip addr add A.B.C.D/NN dev %s); even the IPv6 link-local GID is missing, so check that IPv6 is not disabled on it", dash(p.Netdev), dash(p.Netdev))
				} else {
					r.fix("the port's GID 0 comes from the subnet prefix and port GUID: check the subnet manager")
				}
			case p.LinkLayer == "Ethernet" && p.RecommendedGIDIndex < 0:
				r.judge(Warn, portText(p), strings.Join(gids, "; "), src)
				r.problem(Warn, "%s has no RoCE v2 GID for an IPv4 address, which most RoCE programs use", portText(p))
				r.fix("ip addr add A.B.C.D/NN dev %s: the RoCE v2 GID appears a moment later", dash(p.Netdev))
			default:
				r.judge(Pass, portText(p), strings.Join(gids, "; "), src)
				if p.LinkLayer == "Ethernet" {
					g := gidAt(p, p.RecommendedGIDIndex)
					fine = append(fine, fmt.Sprintf("%s: GID index %d (RoCE v2, %s)", portText(p), g.Index, g.IP))
				} else {
					fine = append(fine, fmt.Sprintf("%s: GID index %d", portText(p), p.RecommendedGIDIndex))
				}
			}
		}
	}
	if len(skipped) > 0 {
		r.note("not checked", joinAnd(skipped)+": not ACTIVE (see ports)", srcClassIB)
	}
	if r.worst == "" {
		return r.na("no port is ACTIVE (see ports)")
	}
	if r.worst == Pass {
		r.ok("%s", strings.Join(fine, "; "))
	}
	return r.done()
}

func gidAt(p sysfsmon.Port, i int) sysfsmon.GID {
	for _, g := range p.GIDs {
		if g.Index == i {
			return g
		}
	}
	return sysfsmon.GID{}
}
