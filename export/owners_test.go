package export

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/sysfsmon"
)

// placeLookup puts the processes of a recording in cgroups: the first
// in a systemd service with a small memlock limit, the others in one
// docker container, unlimited.
func placeLookup(s *inspect.Snapshot, limit uint64) func(int) (sysfsmon.ProcessOwner, error) {
	tgids := map[int]bool{}
	s.Each(func(_ inspect.Kind, o *inspect.Object, _ uint32) {
		if o.HasPID() {
			tgids[int(max(o.TGID, o.PID))] = true
		}
	})
	order := slices.Sorted(maps.Keys(tgids))
	return func(tgid int) (sysfsmon.ProcessOwner, error) {
		i := slices.Index(order, tgid)
		switch {
		case i < 0:
			return sysfsmon.ProcessOwner{}, fmt.Errorf("process %d: %w", tgid, sysfsmon.ErrNoProcess)
		case i == 0:
			return sysfsmon.ProcessOwner{TGID: tgid, Cgroup: sysfsmon.ParseCgroupPath("/system.slice/x.service"), MemlockSoft: sysfsmon.Limit{Value: limit}}, nil
		}
		return sysfsmon.ProcessOwner{TGID: tgid, Cgroup: sysfsmon.ParseCgroupPath("/system.slice/docker-" + strings.Repeat("ab", 32) + ".scope"),
			MemlockSoft: sysfsmon.Limit{Unlimited: true}}, nil
	}
}

// The owner gauges of the rc-rts recording (two ibv_rc_pingpong
// processes) in a service and a container, and with one group kept, the
// other folded.
func TestOwnerGauges(t *testing.T) {
	rts := recorded(t, "rc-rts")
	var pinned uint64
	first := -1
	for _, m := range rts.MRs {
		if first < 0 {
			first = int(max(m.TGID, m.PID))
		}
		if int(max(m.TGID, m.PID)) == first {
			pinned += m.Len
		}
	}
	if pinned == 0 {
		t.Fatal("the recording has no MR")
	}
	c := feed(Options{TopOwners: 5, Owners: placeLookup(rts, 2*pinned)}, rts)
	got := map[string]float64{}
	for _, mf := range gather(t, c) {
		if !strings.HasPrefix(mf.GetName(), "verbscope_owner") && mf.GetName() != "verbscope_process_memlock_ratio" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			got[mf.GetName()+"{"+strings.Join(ls, ",")+"}"] = m.GetGauge().GetValue()
		}
	}
	for k, want := range map[string]float64{
		"verbscope_process_memlock_ratio{owner=x.service}":              0.5,
		"verbscope_process_memlock_ratio{owner=docker:abababababab}":    0,
		"verbscope_owner_objects{kind=qp,owner=x.service}":              1,
		"verbscope_owner_objects{kind=qp,owner=docker:abababababab}":    1,
		"verbscope_owner_pinned_bytes{owner=x.service}":                 float64(pinned),
		"verbscope_owner_objects{kind=cm_id,owner=docker:abababababab}": 0,
	} {
		if v, ok := got[k]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", k, v, ok, want)
		}
	}
	// A growing kind of the service's process.
	minTGID := uint32(1 << 31)
	rts.Each(func(_ inspect.Kind, o *inspect.Object, _ uint32) {
		if o.HasPID() {
			minTGID = min(minTGID, max(o.TGID, o.PID))
		}
	})
	c.observe(inspect.Frame{Snapshot: rts, Update: inspect.Update{Growing: []inspect.Growth{{TGID: minTGID, Kind: "mr", PerMinute: 2.5}}}})
	if v := testutil.ToFloat64(onlyOwner(t, c, "verbscope_owner_objects_growing", "x.service", "mr")); v != 2.5 {
		t.Errorf("verbscope_owner_objects_growing{owner=x.service,kind=mr} = %v, want 2.5", v)
	}
	if n := testutil.CollectAndCount(feed(Options{TopOwners: 1, Owners: placeLookup(rts, 2*pinned)}, rts), "verbscope_owner_pinned_bytes"); n != 2 {
		t.Errorf("--collector.owners=1: %d pinned series, want the top group and other", n)
	}
	if n := testutil.CollectAndCount(feed(Options{}, rts), "verbscope_owner_objects"); n != 0 {
		t.Errorf("without --collector.owners: %d owner series", n)
	}
}

// onlyOwner is a collector of c's one series of metric name for owner
// (and kind, when given).
func onlyOwner(t *testing.T, c *Collector, name, owner, kind string) prometheus.Collector {
	t.Helper()
	for _, mf := range gather(t, c) {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			ok := true
			for _, l := range m.GetLabel() {
				if l.GetName() == "owner" && l.GetValue() != owner || l.GetName() == "kind" && l.GetValue() != kind {
					ok = false
				}
			}
			if ok {
				return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "x"}, m.GetGauge().GetValue)
			}
		}
	}
	t.Fatalf("no %s{owner=%q,kind=%q}", name, owner, kind)
	return nil
}

// --collector.owners.by: the same two processes, one in a pod's
// containerd container, one in a service, labelled by pod, container or
// unit; never by a pid.
func TestOwnerGaugesBy(t *testing.T) {
	rts := recorded(t, "rc-rts")
	const (
		pod = "0f6a9c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
		cid = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899"
	)
	podPath := "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + strings.ReplaceAll(pod, "-", "_") + ".slice/cri-containerd-" + cid + ".scope"
	place := placeLookup(rts, 1<<20)
	lookup := func(tgid int) (sysfsmon.ProcessOwner, error) {
		p, err := place(tgid)
		if err == nil && p.Cgroup.Unit != "x.service" {
			p.Cgroup = sysfsmon.ParseCgroupPath(podPath)
		}
		return p, err
	}
	for _, c := range []struct {
		by   string
		want []string
	}{
		{"pod", []string{pod, "none"}},
		{"container", []string{"containerd:3f4e5d6c7b8a", "none"}},
		{"unit", []string{"cri-containerd-" + cid + ".scope", "x.service"}},
		{"place", []string{"containerd:3f4e5d6c7b8a", "x.service"}},
	} {
		by := owners.By(c.by)
		if !slices.Contains(OwnerGroupings, by) {
			t.Fatalf("OwnerGroupings lacks %q", by)
		}
		var got []string
		for _, mf := range gather(t, feed(Options{TopOwners: 5, OwnersBy: by, Owners: lookup}, rts)) {
			if mf.GetName() != "verbscope_owner_objects" {
				continue
			}
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "owner" && !slices.Contains(got, l.GetValue()) {
						got = append(got, l.GetValue())
					}
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("by %s: owners %q, want %q", c.by, got, c.want)
		}
		// Each group holds one of the pair's QPs.
		for _, o := range c.want {
			if v := testutil.ToFloat64(onlyOwner(t, feed(Options{TopOwners: 5, OwnersBy: by, Owners: lookup}, rts), "verbscope_owner_objects", o, "qp")); v != 1 {
				t.Errorf("by %s: verbscope_owner_objects{owner=%q,kind=qp} = %v, want 1", c.by, o, v)
			}
		}
	}
	for _, bad := range []string{"process", "host", "pid", ""} {
		if slices.Contains(OwnerGroupings, owners.By(bad)) {
			t.Errorf("OwnerGroupings took %q", bad)
		}
	}
}
