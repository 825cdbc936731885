package sysfsmon

import "testing"

func TestCounterUnits(t *testing.T) {
	for _, c := range []struct {
		group, name   string
		value         uint64
		rate          float64
		unit          CounterUnit
		valueT, rateT string
	}{
		// IBTA PortXmitData counts 4-byte words: 2.5M words are 10 MB.
		{"counters", "port_xmit_data", 2_500_000, 250_000, UnitBytes, "10.0MB", "1.0MB/s"},
		{"counters", "port_rcv_data", 300, 0, UnitBytes, "1.2kB", "0B/s"},
		{"counters", "port_xmit_packets", 7500, 2500, UnitPackets, "7.5k pkts", "2.5k pkts/s"},
		{"hw_counters", "sent_pkts", 12, 1.5, UnitPackets, "12 pkts", "1.5 pkts/s"},
		{"hw_counters", "rx_bytes", 123_456_789_012, 999, UnitBytes, "123GB", "999B/s"},
		// A hw_counters port_xmit_data is the driver's own: no IBTA unit.
		{"hw_counters", "port_xmit_data", 5, 0, UnitEvents, "5", "0/s"},
		{"hw_counters", "retry_exceeded_err", 1234567, 2.5, UnitEvents, "1234567", "2.5/s"},
	} {
		r := CounterRate{Counter: Counter{Device: "d", Port: 1, Group: c.group, Name: c.name, Value: c.value}, Rate: c.rate}
		u, _ := r.Unit()
		row := r.Row(true)
		value, _ := row.Get("value")
		rate, _ := row.Get("rate")
		if u != c.unit || value.Text != c.valueT || rate.Text != c.rateT {
			t.Errorf("%s/%s %d at %v/s: %v %q %q, want %v %q %q", c.group, c.name, c.value, c.rate,
				u, value.Text, rate.Text, c.unit, c.valueT, c.rateT)
		}
	}
}

func TestCounterFlow(t *testing.T) {
	for _, c := range []struct{ group, name, want string }{
		{"counters", "port_xmit_data", "tx"},
		{"counters", "port_rcv_data", "rx"},
		{"counters", "port_rcv_packets", "rx"},
		{"counters", "unicast_xmit_packets", ""}, // already in port_xmit_packets
		{"hw_counters", "sent_pkts", "tx"},
		{"hw_counters", "rcvd_pkts", "rx"},
		{"hw_counters", "tx_bytes", "tx"},
		{"hw_counters", "rcvd_seq_err", ""}, // an event counter has no flow
		{"counters", "port_xmit_discards", ""},
	} {
		cn := Counter{Group: c.group, Name: c.name}
		if got := cn.Flow(); got != c.want {
			t.Errorf("%s/%s: flow %q, want %q", c.group, c.name, got, c.want)
		}
	}
}
