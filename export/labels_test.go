package export

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// allowedLabels are every label name the exposition may carry.
var allowedLabels = map[string]bool{
	"device": true, "port": true, "kind": true, "type": true, "state": true, "to_state": true,
	"collector": true, "version": true, "goversion": true, "process": true, "owner": true,
	"node_guid": true, "sys_image_guid": true, "fw_version": true, "node_type": true,
	"link_layer": true, "netdev": true, "cause": true,
}

// TestNoUnboundedLabels gathers a scrape with user QPs, MRs with keys and
// per-process series, and checks every label: only the known names, and
// no value that is a QP number, a pid, a GID or a key of the snapshot.
func TestNoUnboundedLabels(t *testing.T) {
	rts := recorded(t, "rc-rts")
	c := feed(Options{TopProcesses: 5, TopOwners: 5, Owners: placeLookup(rts, 1<<20)}, rts, withState(rts, 18, rdma.QPStateErr))
	sys := sysfsFixture(t, "rxe0")
	c.observeSysfs(sys)

	forbidden := map[string]string{}
	add := func(what string, v uint64, hex bool) {
		forbidden[strconv.FormatUint(v, 10)] = what
		if hex {
			forbidden[fmt.Sprintf("%x", v)] = what
			forbidden[fmt.Sprintf("0x%x", v)] = what
		}
	}
	for _, q := range rts.QPs {
		if q.LQPN > 1 { // QP0 and QP1 are fixed numbers, like port 1
			add("lqpn", uint64(q.LQPN), false)
		}
		if q.RQPN > 1 {
			add("rqpn", uint64(q.RQPN), false)
		}
	}
	rts.Each(func(_ inspect.Kind, o *inspect.Object, _ uint32) {
		if o.HasPID() {
			add("pid", uint64(o.PID), false)
			add("tgid", uint64(o.TGID), false)
		}
	})
	for _, m := range rts.MRs {
		add("rkey", uint64(m.RKey), true)
		add("lkey", uint64(m.LKey), true)
	}
	for _, p := range rts.PDs {
		add("local_dma_lkey", uint64(p.LocalDMALKey), true)
	}
	for _, d := range sys.Devices {
		for _, p := range d.Ports {
			for _, g := range p.GIDs {
				forbidden[g.GID], forbidden[g.Addr], forbidden[g.IP] = "gid", "gid", "gid"
			}
		}
	}
	delete(forbidden, "0") // zero keys are no secret (rxe's rkey 0)
	delete(forbidden, "1")
	if len(forbidden) < 10 {
		t.Fatalf("only %d identifiers to look for: the recording lacks user objects", len(forbidden))
	}

	series := 0
	for _, mf := range gather(t, c) {
		for _, m := range mf.GetMetric() {
			series++
			for _, l := range m.GetLabel() {
				if !allowedLabels[l.GetName()] {
					t.Errorf("%s has label %q, not among the bounded ones", mf.GetName(), l.GetName())
				}
				if what, bad := forbidden[l.GetValue()]; bad {
					t.Errorf("%s{%s=%q}: the value is a %s", mf.GetName(), l.GetName(), l.GetValue(), what)
				}
			}
		}
	}
	if series < 50 {
		t.Errorf("only %d series gathered", series)
	}
}

// TestFailedReadings: a netlink reading that fails and an unreadable
// counters folder each fail their own collector, and the scrape still
// carries the rest.
func TestFailedReadings(t *testing.T) {
	c := feed(Options{}, recorded(t, "idle"))
	c.observe(inspect.Frame{Err: errors.New("nldev: dump: ENOBUFS")})
	r := sysfsFixture(t, "rxe0")
	r.CountersErr, r.Counters = errors.New("no /sys/class/infiniband"), nil
	c.observeSysfs(r)
	for _, tc := range []struct {
		collector string
		want      float64
	}{{collNetlink, 0}, {collCounters, 0}, {collDevices, 1}} {
		got := successOf(t, c, tc.collector)
		if got != tc.want {
			t.Errorf("collector_success{collector=%q} = %v, want %v", tc.collector, got, tc.want)
		}
	}
	if n := testutil.CollectAndCount(c, "verbscope_qps"); n != 0 {
		t.Errorf("after a failed reading %d verbscope_qps series remain, want none (stale counts)", n)
	}
	if n := testutil.CollectAndCount(c, "verbscope_port_info"); n != 1 {
		t.Errorf("verbscope_port_info: %d series, want rxe0's 1", n)
	}
	// The next good frame brings the QPs back, with the groups seen.
	c.observe(inspect.Frame{Snapshot: recorded(t, "idle")})
	if n := testutil.CollectAndCount(c, "verbscope_qps"); n != 7 {
		t.Errorf("verbscope_qps after recovery: %d series, want 7 (GSI in every state)", n)
	}
}

func successOf(t *testing.T, c prometheus.Collector, name string) float64 {
	t.Helper()
	for _, mf := range gather(t, c) {
		if mf.GetName() != "verbscope_collector_success" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == name {
				return m.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("no verbscope_collector_success{collector=%q}", name)
	return -1
}
