package inspect

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

// replayConn returns a Conn whose "kernel" answers every request with the
// replies recorded for the same request (type and attributes) in rec, in
// order, as nltest messages. A request that was never recorded fails the
// call, so a test cannot silently ask for something the real kernel was
// not asked. Comm names come from the recording through a fake /proc.
func replayConn(t testing.TB, rec *Recording) *Conn {
	t.Helper()
	return replayOn(t, rec, nltest.Dial(replayFunc(t, rec)))
}

// replayOn makes a Conn of nl, a socket that answers with rec's replies,
// with rec's fake /proc.
func replayOn(t testing.TB, rec *Recording, nl *netlink.Conn) *Conn {
	t.Helper()
	c := NewConn(nl)
	proc := filepath.Join(t.TempDir(), "proc")
	if err := rec.WriteProc(proc); err != nil {
		t.Fatal(err)
	}
	c.SetProcRoot(proc)
	t.Cleanup(func() { c.Close() })
	return c
}

// replayFunc is the fake kernel of replayConn: each request gets its
// recorded replies, a request recorded more than once its recordings in
// turn and then the last one again.
func replayFunc(t testing.TB, rec *Recording) nltest.Func {
	t.Helper()
	type key struct {
		typ  netlink.HeaderType
		dump bool
		data string
	}
	var mu sync.Mutex
	queues := map[key][][]netlink.Message{}
	for i, ex := range rec.Exchanges {
		var req netlink.Message
		if err := req.UnmarshalBinary(ex.Request); err != nil {
			t.Fatalf("recorded request %d: %v", i, err)
		}
		var replies []netlink.Message
		for j, b := range ex.Replies {
			var m netlink.Message
			if err := m.UnmarshalBinary(b); err != nil {
				t.Fatalf("recorded reply %d.%d: %v", i, j, err)
			}
			replies = append(replies, m)
		}
		k := key{req.Header.Type, req.Header.Flags&netlink.Dump == netlink.Dump, string(req.Data)}
		queues[k] = append(queues[k], replies)
	}
	return func(reqs []netlink.Message) ([]netlink.Message, error) {
		mu.Lock()
		defer mu.Unlock()
		req := reqs[0]
		k := key{req.Header.Type, req.Header.Flags&netlink.Dump == netlink.Dump, string(req.Data)}
		q := queues[k]
		if len(q) == 0 {
			return nil, fmt.Errorf("replay: no recorded reply for request type %#x dump=%v attrs %x", uint16(k.typ), k.dump, req.Data)
		}
		replies := q[0]
		if len(q) > 1 {
			queues[k] = q[1:]
		}
		out := make([]netlink.Message, 0, len(replies)+1)
		for _, m := range replies {
			m.Header.Sequence, m.Header.PID = req.Header.Sequence, nltest.PID
			out = append(out, m)
		}
		if k.dump {
			out = append(out, netlink.Message{
				Header: netlink.Header{Type: netlink.Done, Flags: netlink.Multi, Sequence: req.Header.Sequence, PID: nltest.PID},
				Data:   binary.NativeEndian.AppendUint32(nil, 0),
			})
		}
		return out, nil
	}
}

// loadRecording reads testdata/NAME.json.
func loadRecording(t testing.TB, name string) *Recording {
	t.Helper()
	rec, err := ReadRecording(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}
