package inspect

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
)

// qpWith returns a QP with the attributes attrs marked as sent.
func qpWith(q QP, attrs ...Attr) QP {
	for _, a := range attrs {
		q.Attrs.Add(a)
	}
	return q
}

// checkQPJSON fails when q's AppendJSON differs from its Row's JSON.
func checkQPJSON(t *testing.T, q *QP) {
	t.Helper()
	want := string(q.Row(false).AppendJSON(nil))
	if got := string(q.AppendJSON(nil)); got != want {
		t.Errorf("AppendJSON differs from the Row's JSON (-row +AppendJSON):\n%s", cmp.Diff(want, got))
	}
}

// TestQPAppendJSON holds the QP's own JSON to its Row's: the QPs of every
// lab recording and QPs with each optional attribute, kernel and user,
// with a comm that needs escaping.
func TestQPAppendJSON(t *testing.T) {
	var qps []QP
	for _, sc := range recordedScenarios {
		s, err := replayConn(t, loadRecording(t, sc)).Snapshot(context.Background(), SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		qps = append(qps, s.QPs...)
	}
	user := QP{Object: Object{DevIndex: 3, DevName: "rxe0", PID: 4242, TGID: 4240, Comm: "a\"b\\c\x01\xffé"},
		Port: 1, LQPN: 123456, RQPN: 17, RQPSN: 0xffffff, SQPSN: 99, PDN: 7,
		Type: rdma.QPTypeRC, State: rdma.QPStateRTS, PathMigState: rdma.MigState(1), Subtype: "driver sub"}
	kernel := QP{Object: Object{DevIndex: 1, DevName: "mlx5_0", KernName: "ib_core", Comm: "ib_core"},
		LQPN: 1, Type: rdma.QPTypeGSI, State: rdma.QPStateRTS}
	all := []Attr{AttrPortIndex, AttrResRQPN, AttrResSubtype, AttrResRQPSN, AttrResPathMigState, AttrResPDN, AttrResPID}
	qps = append(qps, kernel, qpWith(kernel, AttrPortIndex), qpWith(user, all...), qpWith(user, AttrResPID),
		qpWith(QP{Type: rdma.QPType(200), State: rdma.QPState(77)}, all...))
	for _, a := range all {
		qps = append(qps, qpWith(user, a))
	}
	for i := range qps {
		checkQPJSON(t, &qps[i])
	}
}

func FuzzQPAppendJSON(f *testing.F) {
	f.Add("rxe0", "ib_rc_pingpong", "", uint32(3), uint32(1), uint32(17), uint32(18), uint32(0), uint32(1), uint8(2), uint8(3), uint8(1), uint64(0x7f))
	f.Fuzz(func(t *testing.T, dev, comm, sub string, idx, pid, tgid, lqpn, psn, pdn uint32, typ, state, mig uint8, attrs uint64) {
		q := QP{Object: Object{DevIndex: idx, DevName: dev, PID: pid, TGID: tgid, Comm: comm},
			Port: pdn, LQPN: lqpn, RQPN: psn, RQPSN: psn, SQPSN: psn, PDN: pdn, Subtype: sub,
			Type: rdma.QPType(typ), State: rdma.QPState(state), PathMigState: rdma.MigState(mig)}
		for i, a := range []Attr{AttrPortIndex, AttrResRQPN, AttrResSubtype, AttrResRQPSN, AttrResPathMigState, AttrResPDN, AttrResPID} {
			if attrs&(1<<i) != 0 {
				q.Attrs.Add(a)
			}
		}
		checkQPJSON(t, &q)
	})
}

// benchQPs are 10,000 user QPs in INIT as the lab's holder leaves them.
func benchQPs() []QP {
	qps := make([]QP, 10000)
	for i := range qps {
		qps[i] = qpWith(QP{Object: Object{DevIndex: 1, DevName: "rxe0", PID: uint32(1000 + i%3), TGID: 1000, Comm: "cli.test"},
			Port: 1, LQPN: uint32(17 + i), PDN: 1, Type: rdma.QPTypeRC, State: rdma.QPStateInit},
			AttrPortIndex, AttrResRQPN, AttrResRQPSN, AttrResPathMigState, AttrResPDN, AttrResPID)
	}
	return qps
}

// BenchmarkQPJSON10k writes 10,000 QPs' JSON through a reused Row, as
// res qp -j did, and straight from each QP (AppendJSON), as it does
// when no filter or -dd needs the row.
func BenchmarkQPJSON10k(b *testing.B) {
	qps := benchQPs()
	buf := make([]byte, 0, 4<<20)
	b.Run("row", func(b *testing.B) {
		b.ReportAllocs()
		var row Row
		for b.Loop() {
			buf = buf[:0]
			for i := range qps {
				row = qps[i].AppendRow(row[:0], false)
				buf = row.AppendJSON(buf)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = buf[:0]
			for i := range qps {
				buf = qps[i].AppendJSON(buf)
			}
		}
	})
}
