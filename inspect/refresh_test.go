package inspect

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
)

// mixedSnapshot is a reading of real QPs, active and not: a recorded
// ibv_rc_pingpong pair's QPs in RTS and the kernel's GSI QP (rc-rts),
// with the RC QPs in INIT of another recording (srq) between them, in a
// dump's order (restrack id: the GSI QP's is above every other's).
func mixedSnapshot(t *testing.T) *Snapshot {
	t.Helper()
	read := func(name string) *Snapshot {
		s, err := replayConn(t, loadRecording(t, name)).Snapshot(context.Background(), SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s, idle := read("rc-rts"), read("srq")
	n := len(s.QPs)
	if n != 3 || s.QPs[n-1].Type != rdma.QPTypeGSI || len(idle.QPs) < 3 {
		t.Fatalf("the recordings changed: rc-rts %d QPs, srq %d", n, len(idle.QPs))
	}
	var qps []QP
	qps = append(qps, s.QPs[:n-1]...)
	for _, q := range idle.QPs {
		if q.Type == rdma.QPTypeRC {
			qps = append(qps, q)
		}
	}
	s.QPs = append(qps, s.QPs[n-1])
	s.MarkChanged(rdma.KindQP)
	return s
}

// kernelAt answers gets from the QPs "the kernel" holds now, counting
// them.
func kernelAt(now []QP, gets *int) qpGetter {
	return func(d Device, port, resID uint32) (QP, bool, error) {
		*gets++
		for _, q := range now {
			if q.DevName == d.Name && qpResID(q.Port, q.LQPN) == resID {
				if q.Port != port {
					return QP{}, false, errDumpQPs
				}
				return q, true, nil
			}
		}
		return QP{}, false, nil
	}
}

func qpTouch(q QP, gone bool) Touch {
	return Touch{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN, Port: q.Port, Gone: gone}
}

func touchedOf(xs ...Touch) touched {
	var t touched
	for _, x := range xs {
		t.add(x)
	}
	return t
}

func TestRefreshQPs(t *testing.T) {
	s := mixedSnapshot(t)
	prev := s.QPs
	var activeN int
	moved := append([]QP(nil), prev...) // the active QPs' PSNs moved
	for i := range moved {
		if activeQP(moved[i].State) {
			moved[i].SQPSN++
			activeN++
		}
	}
	firstIdle := -1
	for i, q := range prev {
		if !activeQP(q.State) && q.Port != 0 {
			firstIdle = i
			break
		}
	}
	if firstIdle < 0 {
		t.Fatal("the recording should hold a QP with a port that is not active")
	}
	erred := append([]QP(nil), moved...)
	erred[firstIdle].State = rdma.QPStateErr
	newQP := prev[firstIdle]
	newQP.LQPN = 1 << 20 // after every other but the GSI QP
	last := len(moved) - 1
	withNew := append(append(append([]QP(nil), moved[:last]...), newQP), moved[last])
	gone := append(append([]QP(nil), moved[:firstIdle]...), moved[firstIdle+1:]...)

	for _, tc := range []struct {
		name     string
		now      []QP
		touched  touched
		want     []QP
		wantGets int
		wantErr  error
	}{
		{"idle: the active QPs read again, alone", moved, touched{}, moved, activeN, nil},
		{"a modify: that QP read again", erred, touchedOf(qpTouch(prev[firstIdle], false)), erred, activeN + 1, nil},
		{"a destroy: that QP dropped without a read", gone, touchedOf(qpTouch(prev[firstIdle], true)), gone, activeN, nil},
		{"a new QP with a port: read and put in a dump's order", withNew, touchedOf(qpTouch(newQP, false)), withNew, activeN + 1, nil},
		{"a new QP without a port: a dump", withNew, touchedOf(Touch{Kind: rdma.KindQP, Dev: newQP.DevName, ID: newQP.LQPN}), nil, 0, errDumpQPs},
		{"a QP moved to another port untraced: a dump", nil, touchedOf(Touch{Kind: rdma.KindQP, Dev: newQP.DevName, ID: prev[firstIdle].LQPN, Port: 9}), nil, -1, errDumpQPs},
		{"a QP gone before its destroy was read: dropped", gone, touchedOf(qpTouch(prev[firstIdle], false)), gone, activeN + 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gets := 0
			now := tc.now
			if now == nil {
				now = moved
			}
			got, _, err := refreshQPs(prev, tc.touched, s.Devices, kernelAt(now, &gets))
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("QPs (-want +got):\n%s", diff)
			}
			if tc.wantGets >= 0 && gets != tc.wantGets {
				t.Errorf("%d gets, want %d", gets, tc.wantGets)
			}
		})
	}
}

func TestRefreshQPsTooManyGetsDumps(t *testing.T) {
	s := mixedSnapshot(t)
	var xs []Touch
	for i := range maxQPGets + 1 {
		xs = append(xs, Touch{Kind: rdma.KindQP, Dev: s.QPs[0].DevName, ID: uint32(1000 + i), Port: 1})
	}
	gets := 0
	if _, _, err := refreshQPs(s.QPs, touchedOf(xs...), s.Devices, kernelAt(s.QPs, &gets)); !errors.Is(err, errDumpQPs) || gets != 0 {
		t.Errorf("%d QPs to read alone: err %v after %d gets, want errDumpQPs before any", maxQPGets+1, err, gets)
	}
}

func TestRefreshQPsNothingToRead(t *testing.T) {
	s := mixedSnapshot(t)
	var idle []QP
	for _, q := range s.QPs {
		if !activeQP(q.State) {
			idle = append(idle, q)
		}
	}
	gets := 0
	got, _, err := refreshQPs(idle, touched{}, s.Devices, kernelAt(idle, &gets))
	if err != nil || gets != 0 || len(got) != len(idle) || &got[0] != &idle[0] {
		t.Errorf("no touch, no active QP: got %d QPs (same slice %v), %d gets, err %v; want the last reading's, untouched, no get", len(got), len(got) > 0 && &got[0] == &idle[0], gets, err)
	}
}

func TestTouchedKeepsPortAndMarksUsers(t *testing.T) {
	tch := touchedOf(
		Touch{Kind: rdma.KindQP, Dev: "rxe0", ID: 17, Port: 1},
		Touch{Kind: rdma.KindQP, Dev: "rxe0", ID: 17}, // a later touch without a port
		Touch{Kind: rdma.KindMR, Dev: "rxe0", ID: 3, Gone: true},
	)
	if got := tch.objs[Key{Kind: rdma.KindQP, Dev: "rxe0", ID: 17}]; got.Port != 1 {
		t.Errorf("the QP's port after a touch without one: %d, want the known 1", got.Port)
	}
	want := map[Kind]bool{rdma.KindQP: true, rdma.KindMR: true, rdma.KindPD: true, rdma.KindCQ: true}
	if diff := cmp.Diff(want, tch.kinds); diff != "" {
		t.Errorf("kinds to read again (-want +got):\n%s", diff)
	}
}

// TestRefreshQPsUnchangedIsTheSame: when the QPs read again are as they
// were (idle QPs in RTS, the GSI QP), the reading hands over the last
// one's slice, so readers can tell nothing changed (SameObjects).
func TestRefreshQPsUnchangedIsTheSame(t *testing.T) {
	s := mixedSnapshot(t)
	gets := 0
	got, _, err := refreshQPs(s.QPs, touched{}, s.Devices, kernelAt(s.QPs, &gets))
	if err != nil || gets == 0 || len(got) != len(s.QPs) || &got[0] != &s.QPs[0] {
		t.Errorf("the active QPs read again unchanged: %d gets, err %v, same slice %v; want the last reading's slice", gets, err, len(got) > 0 && &got[0] == &s.QPs[0])
	}
	touchedIdle := touchedOf(qpTouch(s.QPs[3], false)) // modified, but to the same
	if got, _, err := refreshQPs(s.QPs, touchedIdle, s.Devices, kernelAt(s.QPs, &gets)); err != nil || &got[0] != &s.QPs[0] {
		t.Errorf("a touched QP read again unchanged: err %v; want the last reading's slice", err)
	}
}

// TestRefreshQPsEachOnce: a last reading that held a QP twice gives a
// reading with it once, as the kernel read it now.
func TestRefreshQPsEachOnce(t *testing.T) {
	s := mixedSnapshot(t)
	twice := append([]QP(nil), s.QPs...)
	twice = append(twice[:2], append([]QP{twice[1]}, twice[2:]...)...) // the second QP twice
	now := append([]QP(nil), s.QPs...)
	now[1].State = rdma.QPStateErr
	gets := 0
	got, _, err := refreshQPs(twice, touchedOf(qpTouch(now[1], false)), s.Devices, kernelAt(now, &gets))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(now, got); diff != "" {
		t.Errorf("QPs (-want +got):\n%s", diff)
	}
}
