package netpath

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// route is the answer to RTM_GETROUTE (rtnetlink(7); net/ipv4/route.c
// inet_rtm_getroute): the route's type, its output device and gateway.
type route struct {
	typ     uint8 // rtm_type: RTN_UNICAST, RTN_LOCAL, ...
	oif     uint32
	gateway netip.Addr // invalid when the destination is on-link
	prefsrc netip.Addr
}

// neighbour is the answer to RTM_GETNEIGH (net/core/neighbour.c
// neigh_get): the entry's NUD state.
type neighbour struct {
	state uint16 // NUD_*
}

// link is the answer to RTM_GETLINK: the device's name and flags.
type link struct {
	name  string
	flags uint32 // IFF_*
}

// rtmsgLen, ndmsgLen and ifinfomsgLen are the fixed headers of
// include/uapi/linux/rtnetlink.h and neighbour.h.
const (
	rtmsgLen     = 12
	ndmsgLen     = 12
	ifinfomsgLen = 16
)

// family is AF_INET or AF_INET6 for an address.
func family(a netip.Addr) uint8 {
	if a.Is4() {
		return unix.AF_INET
	}
	return unix.AF_INET6
}

// routeRequest is `ip route get DST from SRC oif OIF`.
func routeRequest(dst, src netip.Addr, oif uint32) ([]byte, error) {
	ae := netlink.NewAttributeEncoder()
	ae.Bytes(unix.RTA_DST, dst.AsSlice())
	ae.Bytes(unix.RTA_SRC, src.AsSlice())
	ae.Uint32(unix.RTA_OIF, oif)
	attrs, err := ae.Encode()
	if err != nil {
		return nil, err
	}
	hdr := make([]byte, rtmsgLen)
	bits := uint8(dst.BitLen())
	hdr[0], hdr[1], hdr[2] = family(dst), bits, bits
	return append(hdr, attrs...), nil
}

// parseRoute reads an RTM_NEWROUTE message.
func parseRoute(b []byte) (route, error) {
	if len(b) < rtmsgLen {
		return route{}, fmt.Errorf("netpath: route reply of %d bytes, shorter than struct rtmsg", len(b))
	}
	r := route{typ: b[7]}
	ad, err := netlink.NewAttributeDecoder(b[rtmsgLen:])
	if err != nil {
		return route{}, fmt.Errorf("netpath: route reply: %w", err)
	}
	for ad.Next() {
		switch ad.Type() {
		case unix.RTA_OIF:
			r.oif = ad.Uint32()
		case unix.RTA_GATEWAY:
			r.gateway, _ = netip.AddrFromSlice(ad.Bytes())
		case unix.RTA_PREFSRC:
			r.prefsrc, _ = netip.AddrFromSlice(ad.Bytes())
		}
	}
	if err := ad.Err(); err != nil {
		return route{}, fmt.Errorf("netpath: route reply: %w", err)
	}
	return r, nil
}

// neighRequest is `ip neigh get ADDR dev OIF`.
func neighRequest(addr netip.Addr, oif uint32) ([]byte, error) {
	ae := netlink.NewAttributeEncoder()
	ae.Bytes(unix.NDA_DST, addr.AsSlice())
	attrs, err := ae.Encode()
	if err != nil {
		return nil, err
	}
	hdr := make([]byte, ndmsgLen)
	hdr[0] = family(addr)
	binary.NativeEndian.PutUint32(hdr[4:8], oif)
	return append(hdr, attrs...), nil
}

// parseNeigh reads an RTM_NEWNEIGH message.
func parseNeigh(b []byte) (neighbour, error) {
	if len(b) < ndmsgLen {
		return neighbour{}, fmt.Errorf("netpath: neighbour reply of %d bytes, shorter than struct ndmsg", len(b))
	}
	return neighbour{state: binary.NativeEndian.Uint16(b[8:10])}, nil
}

// linkRequest is `ip link show` of one index.
func linkRequest(index uint32) []byte {
	hdr := make([]byte, ifinfomsgLen)
	binary.NativeEndian.PutUint32(hdr[4:8], index)
	return hdr
}

// parseLink reads an RTM_NEWLINK message.
func parseLink(b []byte) (link, error) {
	if len(b) < ifinfomsgLen {
		return link{}, fmt.Errorf("netpath: link reply of %d bytes, shorter than struct ifinfomsg", len(b))
	}
	l := link{flags: binary.NativeEndian.Uint32(b[8:12])}
	ad, err := netlink.NewAttributeDecoder(b[ifinfomsgLen:])
	if err != nil {
		return link{}, fmt.Errorf("netpath: link reply: %w", err)
	}
	for ad.Next() {
		if ad.Type() == unix.IFLA_IFNAME {
			l.name = ad.String()
		}
	}
	if err := ad.Err(); err != nil {
		return link{}, fmt.Errorf("netpath: link reply: %w", err)
	}
	return l, nil
}

// ask sends one rtnetlink request and returns the data of its single
// answer; a kernel error comes back as its errno.
func ask(c *netlink.Conn, typ netlink.HeaderType, data []byte) ([]byte, error) {
	msgs, err := c.Execute(netlink.Message{Header: netlink.Header{Type: typ, Flags: netlink.Request}, Data: data})
	if err != nil {
		var en syscall.Errno
		if errors.As(err, &en) {
			return nil, en
		}
		return nil, err
	}
	if len(msgs) != 1 {
		return nil, fmt.Errorf("netpath: %d answers to one request", len(msgs))
	}
	return msgs[0].Data, nil
}

// nudValid is NUD_VALID of include/net/neighbour.h: the states in which
// the kernel uses the entry's MAC without asking.
const nudValid = unix.NUD_PERMANENT | unix.NUD_NOARP | unix.NUD_REACHABLE | unix.NUD_PROBE | unix.NUD_STALE | unix.NUD_DELAY

// nudName names a NUD state as `ip neigh` prints it.
func nudName(s uint16) string {
	for _, n := range []struct {
		bit  uint16
		name string
	}{{unix.NUD_INCOMPLETE, "INCOMPLETE"}, {unix.NUD_REACHABLE, "REACHABLE"}, {unix.NUD_STALE, "STALE"},
		{unix.NUD_DELAY, "DELAY"}, {unix.NUD_PROBE, "PROBE"}, {unix.NUD_FAILED, "FAILED"},
		{unix.NUD_NOARP, "NOARP"}, {unix.NUD_PERMANENT, "PERMANENT"}} {
		if s&n.bit != 0 {
			return n.name
		}
	}
	return "NONE"
}
