package inspect

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"

	"github.com/verbscope/verbscope/rdma"
)

// bigQPDump builds the payloads of a QP dump of n user QPs in INIT, in
// messages of about 32 KiB as the kernel fills them, from the entry
// layout the lab kernel sends (rc-init recording).
func bigQPDump(n int) [][]byte {
	var msgs [][]byte
	head := cat(attr(AttrDevIndex, u32b(0)), attr(AttrDevName, []byte("rxe0\x00")))
	var tab []byte
	flush := func() {
		msgs = append(msgs, cat(head, attr(AttrResQP, tab)))
		tab = nil
	}
	for i := 0; i < n; i++ {
		e := cat(attr(AttrPortIndex, u32b(1)), attr(AttrResLQPN, u32b(uint32(17+i))), attr(AttrResPDN, u32b(1)),
			attr(AttrResPID, u32b(uint32(1000+i%3))), attr(AttrResRQPN, u32b(0)), attr(AttrResRQPSN, u32b(0)),
			attr(AttrResSQPSN, u32b(0)), attr(AttrResPathMigState, []byte{0}), attr(AttrResType, []byte{2}),
			attr(AttrResState, []byte{1}))
		tab = append(tab, attr(AttrResQPEntry, e)...)
		if len(tab) > 32000 {
			flush()
		}
	}
	flush()
	return msgs
}

// BenchmarkDecodeQPs10k measures the user-space half of a refresh on the
// build host: decoding a 10,000-QP dump (replayed through nltest) and
// feeding it to a Tracker. The lab's BenchmarkRefresh10kQPs measures the
// whole thing against the real kernel.
func BenchmarkDecodeQPs10k(b *testing.B) {
	msgs := bigQPDump(10000)
	dev := idleDeviceB(b)
	c := NewConn(nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) == 0 {
			return nil, nil
		}
		req := reqs[0]
		var data [][]byte
		switch Command(uint16(req.Header.Type) & 0x3ff) {
		case CmdGet:
			data = [][]byte{dev}
		case CmdResQPGet:
			data = msgs
		}
		var out []netlink.Message
		for _, d := range data {
			out = append(out, netlink.Message{Header: netlink.Header{Type: req.Header.Type, Flags: netlink.Multi, Sequence: req.Header.Sequence}, Data: d})
		}
		return append(out, netlink.Message{Header: netlink.Header{Type: netlink.Done, Flags: netlink.Multi, Sequence: req.Header.Sequence},
			Data: binary.NativeEndian.AppendUint32(nil, 0)}), nil
	}))
	defer c.Close()
	c.SetProcRoot(b.TempDir())
	tr := NewTracker(TrackerConfig{})
	b.ReportAllocs()
	for b.Loop() {
		qps, err := c.QPs(Query{})
		if err != nil || len(qps) != 10000 {
			b.Fatal(len(qps), err)
		}
		tr.Update(&Snapshot{QPs: qps})
	}
}

func idleDeviceB(b *testing.B) []byte {
	rec, err := ReadRecording("testdata/idle.json")
	if err != nil {
		b.Fatal(err)
	}
	var m netlink.Message
	if err := m.UnmarshalBinary(rec.Exchanges[0].Replies[0]); err != nil {
		b.Fatal(err)
	}
	return m.Data
}

// BenchmarkTrackIdle10kQPs: a Tracker fed a reading of 10,000 QPs in INIT
// that nothing changed (the same objects each time, as a reading built
// from trace's events hands over on an idle host), and its histories
// taken, as a Watcher does per reading: the part of an idle reading
// that still grows with what exists.
func BenchmarkTrackIdle10kQPs(b *testing.B) {
	qps := make([]QP, 10000)
	for i := range qps {
		qps[i] = QP{Object: Object{DevName: "rxe0", PID: uint32(1000 + i%3), TGID: uint32(1000 + i%3), Comm: "holder", Owner: OwnerLive},
			Port: 1, LQPN: uint32(17 + i), Type: rdma.QPTypeRC, State: rdma.QPStateInit, PDN: 1}
	}
	s := &Snapshot{Time: time.Unix(1e9, 0), QPs: qps}
	s.MarkChanged(rdma.ResourceKinds()...) // as a Watcher's reading: every kind marked
	t := NewTracker(TrackerConfig{})
	t.Update(s)
	b.ReportAllocs()
	for b.Loop() {
		next := *s
		next.Time = next.Time.Add(time.Second)
		t.Update(&next)
		t.Histories()
		s = &next
	}
}
