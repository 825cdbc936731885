package inspect

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/rdma"
)

// hostWith is a snapshot at at with n MRs and cqs CQs of each process,
// by TGID (created by thread TGID+1, as a Go program's are).
func hostWith(at time.Time, mrs, cqs map[uint32]int) *Snapshot {
	s := &Snapshot{Time: at}
	obj := func(tgid uint32, comm string) Object {
		o := Object{DevName: "rxe0", PID: tgid + 1, TGID: tgid, Comm: comm, Owner: OwnerLive}
		o.Attrs.Add(AttrResPID)
		return o
	}
	id := uint32(0)
	for tgid, n := range mrs {
		for range n {
			id++
			s.MRs = append(s.MRs, MR{Object: obj(tgid, "p"), MRN: id, Len: 4096})
		}
	}
	for tgid, n := range cqs {
		for range n {
			id++
			s.CQs = append(s.CQs, CQ{Object: obj(tgid, "p"), CQN: id})
		}
	}
	return s
}

func TestGrowing(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	const (
		leaker  = 100 // one MR more every 10 s
		starter = 200 // 50 MRs at once, then steady
		churner = 300 // up and down, more each time
		dier    = 400 // leaks, then exits
		slow    = 500 // one MR a minute: below the threshold
	)
	tr := NewTracker(TrackerConfig{GrowthWindow: 2 * time.Minute, GrowthMin: 5})
	var last Update
	for i := 0; i <= 18; i++ { // 3 minutes, every 10 s
		at := t0.Add(time.Duration(i) * 10 * time.Second)
		mrs := map[uint32]int{leaker: i, starter: 50, churner: i + 2*(i%2)*i, slow: i / 6}
		if i < 12 {
			mrs[dier] = i
		}
		cqs := map[uint32]int{leaker: 1}
		last = tr.Update(hostWith(at, mrs, cqs))
		if i == 5 && len(last.Growing) > 0 {
			t.Errorf("at 50 s, under half the window, growing: %+v", last.Growing)
		}
	}
	// At 3 min the window is 1:00..3:00: the leaker went 6 → 18.
	want := []Growth{{TGID: leaker, Comm: "p", Kind: rdma.KindMR, From: 6, To: 18, Since: t0.Add(time.Minute), PerMinute: 6}}
	if diff := cmp.Diff(want, last.Growing); diff != "" {
		t.Errorf("Growing at 3 min (-want +got):\n%s", diff)
	}
	// The leaker stops: a window later it is no suspect.
	for i := 19; i <= 31; i++ {
		last = tr.Update(hostWith(t0.Add(time.Duration(i)*10*time.Second), map[uint32]int{leaker: 18}, nil))
	}
	if len(last.Growing) != 0 {
		t.Errorf("a steady process still growing: %+v", last.Growing)
	}
	if len(tr.growth) != 2 { // the leaker's MRs and CQs (0 now)
		t.Errorf("%d series kept, want the live process's 2: the others' went with them", len(tr.growth))
	}
}

func TestGrowingDefaults(t *testing.T) {
	tr := NewTracker(TrackerConfig{})
	if tr.cfg.GrowthWindow != DefaultGrowthWindow || tr.cfg.GrowthMin != defaultGrowthMin {
		t.Errorf("defaults %v %d", tr.cfg.GrowthWindow, tr.cfg.GrowthMin)
	}
}
