package sysfsmon

import (
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/view"
)

// CounterUnit is what one count of a counter stands for.
type CounterUnit uint8

// Counter units.
const (
	// UnitEvents: one count is one occurrence (errors, retries, drops).
	UnitEvents CounterUnit = iota
	// UnitBytes: the counter counts data, in units of Scale bytes.
	UnitBytes
	// UnitPackets: one count is one packet.
	UnitPackets
)

var unitNames = [...]string{"events", "bytes", "packets"}

// String returns "events", "bytes" or "packets".
func (u CounterUnit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return "events"
}

// Unit says what the counter counts and how many of that unit one count
// is. The IBTA PortCounters PortXmitData and PortRcvData count octets
// divided by four (IBTA vol. 1, PortCounters; the kernel publishes them
// as counters/port_xmit_data and port_rcv_data, drivers/infiniband/core/
// sysfs.c, and RoCE drivers shift their byte counts to match), so one
// count is 4 bytes; a hw_counters/ name ending in "bytes" counts bytes;
// names saying packets ("*_packets", "*_pkts") count packets.
func (c *Counter) Unit() (u CounterUnit, scale uint64) {
	n := c.Name
	switch {
	case c.Group == "counters" && (n == "port_xmit_data" || n == "port_rcv_data"):
		return UnitBytes, 4
	case strings.HasSuffix(n, "bytes") || strings.HasSuffix(n, "octets"):
		return UnitBytes, 1
	case strings.Contains(n, "packets") || strings.Contains(n, "pkts"):
		return UnitPackets, 1
	}
	return UnitEvents, 1
}

// valueText prints a counter's total in its unit: 12.3 GB, 1.2M pkts;
// an event count stays exact.
func valueText(u CounterUnit, n float64, exact uint64) string {
	switch u {
	case UnitBytes:
		return view.SI(n) + "B"
	case UnitPackets:
		return view.SI(n) + " pkts"
	}
	return strconv.FormatUint(exact, 10)
}

// rateText prints a per-second rate in the counter's unit: 1.2 MB/s,
// 3.4k pkts/s, 2.5/s.
func rateText(u CounterUnit, r float64) string {
	switch u {
	case UnitBytes:
		return view.SI(r) + "B/s"
	case UnitPackets:
		return view.SI(r) + " pkts/s"
	}
	return compactRate(r) + "/s"
}

// Flow says which way a data or packet counter counts: "tx" for what
// the port sent, "rx" for what it received, "" for neither or for a
// counter that is part of another (unicast_ and multicast_ packets are
// in port_xmit_packets and port_rcv_packets already). rxe's sent_pkts
// and rcvd_pkts, the IBTA port_xmit_*/port_rcv_*, and hw_counters'
// tx_*/rx_* names are recognised.
func (c *Counter) Flow() string {
	if u, _ := c.Unit(); u == UnitEvents {
		return ""
	}
	n := c.Name
	switch {
	case strings.HasPrefix(n, "unicast_") || strings.HasPrefix(n, "multicast_"):
		return ""
	case strings.Contains(n, "xmit") || strings.HasPrefix(n, "sent") || strings.HasPrefix(n, "tx"):
		return "tx"
	case strings.Contains(n, "rcv") || strings.HasPrefix(n, "rx"):
		return "rx"
	}
	return ""
}
