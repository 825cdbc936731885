package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// followScenario is an rc_pingpong-like QP seen by a Tracker fed as the
// Watcher feeds it: traced modifies, then the snapshot that follows them.
// It returns the frames.
func followScenario(t *testing.T) []inspect.Frame {
	t.Helper()
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	qp := func(lqpn uint32, st rdma.QPState, comm string) inspect.QP {
		q := inspect.QP{Object: inspect.Object{DevIndex: 1, DevName: "rxe0", PID: 812, Comm: comm}, Port: 1, LQPN: lqpn, RQPN: 18, Type: rdma.QPTypeRC, State: st, SQPSN: 0x5a3f12, RQPSN: 0x1234, PDN: 3}
		// What the kernel sends for a user RC QP past INIT.
		for _, a := range []inspect.Attr{inspect.AttrPortIndex, inspect.AttrResRQPN, inspect.AttrResRQPSN, inspect.AttrResPDN, inspect.AttrResPID} {
			q.Attrs.Add(a)
		}
		return q
	}
	snap := func(sec int, qps ...inspect.QP) *inspect.Snapshot {
		return &inspect.Snapshot{Time: t0.Add(time.Duration(sec) * time.Second), QPs: qps}
	}
	mod := func(ms int, from, to rdma.QPState, ret int, attrs ...string) inspect.Modify {
		m := inspect.Modify{Time: t0.Add(time.Duration(ms) * time.Millisecond), Dev: "rxe0", QPN: 17, PID: 812, Comm: "ibv_rc_pingpong",
			From: from, To: to, HasState: true, Mask: []string{"IB_QP_STATE"}, Ret: ret}
		js := []string{`"qp_state":"` + to.String() + `"`}
		m.Attrs = append(m.Attrs, inspect.ModifyAttr{Name: "qp_state", Value: to.String()})
		for _, a := range attrs {
			k, v, _ := strings.Cut(a, "=")
			m.Attrs = append(m.Attrs, inspect.ModifyAttr{Name: k, Value: v})
			m.Mask = append(m.Mask, "IB_QP_"+strings.ToUpper(k))
			js = append(js, `"`+k+`":`+v)
		}
		m.AttrsJSON = []byte("{" + strings.Join(js, ",") + "}")
		if ret < 0 {
			m.Errno, m.Check = "EINVAL", "RTS→RTR is not a transition the QP state machine has"
		}
		return m
	}
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	var frames []inspect.Frame
	add := func(s *inspect.Snapshot, mods ...inspect.Modify) {
		for _, m := range mods {
			tr.Observe(m)
		}
		frames = append(frames, inspect.Frame{Seq: uint64(len(frames) + 1), Snapshot: s, Update: tr.Update(s), History: tr.Histories()})
	}
	add(snap(0, qp(5, rdma.QPStateRTS, "other")))
	add(snap(1, qp(5, rdma.QPStateRTS, "other"), qp(17, rdma.QPStateRTS, "ibv_rc_pingpong")),
		mod(200, rdma.QPStateReset, rdma.QPStateInit, 0, "pkey_index=0", "port_num=1"),
		mod(300, rdma.QPStateInit, rdma.QPStateRTR, 0, "path_mtu=1024", "dest_qp_num=18", "min_rnr_timer=12"),
		mod(400, rdma.QPStateRTR, rdma.QPStateRTS, 0, "timeout=14", "retry_cnt=7", "rnr_retry=7"))
	add(snap(2, qp(5, rdma.QPStateRTS, "other"), qp(17, rdma.QPStateRTS, "ibv_rc_pingpong")),
		mod(1500, rdma.QPStateRTS, rdma.QPStateRTR, -22))
	add(snap(3, qp(5, rdma.QPStateRTS, "other"), qp(17, rdma.QPStateErr, "ibv_rc_pingpong")))
	add(snap(4, qp(5, rdma.QPStateRTS, "other")))
	return frames
}

func followScenarioText(t *testing.T, json bool, words ...string) string {
	t.Helper()
	flt, err := parseWords("qp", words)
	if err != nil {
		t.Fatal(err)
	}
	f := inspect.NewQPFollower(flt)
	var b strings.Builder
	for _, fr := range followScenario(t) {
		for _, l := range f.Next(fr) {
			b.WriteString(l.Text(json))
		}
	}
	return b.String()
}

func TestFollowQPs(t *testing.T) {
	golden(t, "res-qp-follow", followScenarioText(t, false))
	golden(t, "res-qp-follow-json", followScenarioText(t, true))
	golden(t, "res-qp-follow-filtered", followScenarioText(t, false, "lqpn", "5"))
}

// TestFollowUsage: --follow is for QPs, -n needs it.
func TestFollowUsage(t *testing.T) {
	for _, args := range [][]string{{"res", "cq", "--follow"}, {"res", "qp", "-n", "3"}, {"res", "qp", "--follow", "-n", "-1"}} {
		code, _, stderr := runCLI(args...)
		if code != 2 || !strings.Contains(stderr, "usage") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error (2)", args, code, stderr)
		}
	}
}
