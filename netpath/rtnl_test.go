package netpath

import (
	"encoding/binary"
	"net/netip"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// replyRoute builds an RTM_NEWROUTE body as the kernel's rt_fill_info
// writes it for `ip route get 10.0.0.99 from 10.0.0.1 oif veth0`
// (recorded in the lab: rtm_type unicast, RTA_OIF 3, RTA_PREFSRC).
func replyRoute(t testing.TB, typ uint8, gw netip.Addr) []byte {
	ae := netlink.NewAttributeEncoder()
	ae.Bytes(unix.RTA_DST, netip.MustParseAddr("10.0.0.99").AsSlice())
	ae.Uint32(unix.RTA_OIF, 3)
	ae.Bytes(unix.RTA_PREFSRC, netip.MustParseAddr("10.0.0.1").AsSlice())
	if gw.IsValid() {
		ae.Bytes(unix.RTA_GATEWAY, gw.AsSlice())
	}
	b, err := ae.Encode()
	if err != nil {
		t.Fatal(err)
	}
	hdr := []byte{unix.AF_INET, 32, 0, 0, unix.RT_TABLE_MAIN, unix.RTPROT_UNSPEC, unix.RT_SCOPE_UNIVERSE, typ, 0, 0, 0, 0}
	return append(hdr, b...)
}

func TestParseRoute(t *testing.T) {
	gw := netip.MustParseAddr("10.0.0.254")
	for _, tc := range []struct {
		name string
		b    []byte
		want route
	}{
		{"on-link", replyRoute(t, unix.RTN_UNICAST, netip.Addr{}), route{typ: unix.RTN_UNICAST, oif: 3, prefsrc: netip.MustParseAddr("10.0.0.1")}},
		{"via a gateway", replyRoute(t, unix.RTN_UNICAST, gw), route{typ: unix.RTN_UNICAST, oif: 3, gateway: gw, prefsrc: netip.MustParseAddr("10.0.0.1")}},
		{"local", replyRoute(t, unix.RTN_LOCAL, netip.Addr{}), route{typ: unix.RTN_LOCAL, oif: 3, prefsrc: netip.MustParseAddr("10.0.0.1")}},
	} {
		got, err := parseRoute(tc.b)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b netip.Addr) bool { return a == b }), cmp.AllowUnexported(route{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if _, err := parseRoute(make([]byte, 5)); err == nil {
		t.Error("a 5-byte route reply parsed")
	}
}

func TestParseNeighAndLink(t *testing.T) {
	nd := make([]byte, ndmsgLen)
	nd[0] = unix.AF_INET
	binary.NativeEndian.PutUint16(nd[8:10], unix.NUD_FAILED)
	n, err := parseNeigh(nd)
	if err != nil || n.state != unix.NUD_FAILED || n.state&nudValid != 0 || nudName(n.state) != "FAILED" {
		t.Errorf("parseNeigh = %+v, %v (%s)", n, err, nudName(n.state))
	}
	for st, valid := range map[uint16]bool{unix.NUD_REACHABLE: true, unix.NUD_STALE: true, unix.NUD_DELAY: true,
		unix.NUD_PROBE: true, unix.NUD_PERMANENT: true, unix.NUD_NOARP: true, unix.NUD_INCOMPLETE: false, unix.NUD_FAILED: false, 0: false} {
		if got := st&nudValid != 0; got != valid {
			t.Errorf("%s: valid %v, want %v", nudName(st), got, valid)
		}
	}
	ae := netlink.NewAttributeEncoder()
	ae.String(unix.IFLA_IFNAME, "veth0")
	attrs, err := ae.Encode()
	if err != nil {
		t.Fatal(err)
	}
	li := make([]byte, ifinfomsgLen)
	binary.NativeEndian.PutUint32(li[8:12], unix.IFF_UP|unix.IFF_BROADCAST)
	l, err := parseLink(append(li, attrs...))
	if err != nil || l.name != "veth0" || l.flags != unix.IFF_UP|unix.IFF_BROADCAST {
		t.Errorf("parseLink = %+v, %v", l, err)
	}
}

// The requests are what `ip route get` and `ip neigh get` send.
func TestRequests(t *testing.T) {
	req, err := routeRequest(netip.MustParseAddr("10.0.0.99"), netip.MustParseAddr("10.0.0.1"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if req[0] != unix.AF_INET || req[1] != 32 || req[2] != 32 {
		t.Errorf("rtmsg = % x", req[:rtmsgLen])
	}
	ad, err := netlink.NewAttributeDecoder(req[rtmsgLen:])
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint16]string{}
	for ad.Next() {
		if ad.Type() == unix.RTA_OIF {
			got[ad.Type()] = "oif"
			continue
		}
		a, _ := netip.AddrFromSlice(ad.Bytes())
		got[ad.Type()] = a.String()
	}
	want := map[uint16]string{unix.RTA_DST: "10.0.0.99", unix.RTA_SRC: "10.0.0.1", unix.RTA_OIF: "oif"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("route request (-want +got):\n%s", diff)
	}
	n, err := neighRequest(netip.MustParseAddr("fe80::1"), 7)
	if err != nil || n[0] != unix.AF_INET6 || binary.NativeEndian.Uint32(n[4:8]) != 7 {
		t.Errorf("neighbour request % x, %v", n, err)
	}
}

// The replies come from the kernel, outside input: no crash on any bytes.
func FuzzParseReplies(f *testing.F) {
	f.Add(replyRoute(f, unix.RTN_UNICAST, netip.MustParseAddr("10.0.0.254")))
	f.Add(make([]byte, ndmsgLen))
	f.Add(make([]byte, ifinfomsgLen+8))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseRoute(b)
		parseNeigh(b)
		parseLink(b)
	})
}
