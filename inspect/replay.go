package inspect

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

// Replay returns a Conn whose "kernel" answers every request with the
// replies recorded for the same request (type, dump flag and attributes)
// in rec, in order, through mdlayher/netlink's nltest: a recording taken
// with Record on a real kernel (`verbscope res --record`) replayed where
// there is none — for the unit tests of every view, and for reading a
// bug report's state. A request that was never recorded fails the call,
// so a test cannot silently ask what the real kernel was not asked.
// Comm names come from the recording: procRoot is an empty folder
// Replay fills as /proc (see Recording.WriteProc).
func Replay(rec *Recording, procRoot string) (*Conn, error) {
	fn, err := newReplayFunc(rec)
	if err != nil {
		return nil, err
	}
	c := NewConn(nltest.Dial(fn))
	if err := rec.WriteProc(procRoot); err != nil {
		c.Close()
		return nil, fmt.Errorf("inspect: replay: %w", err)
	}
	c.SetProcRoot(procRoot)
	return c, nil
}

// newReplayFunc is Replay's fake kernel, an nltest.Func: each request gets
// its recorded replies, a request recorded more than once its
// recordings in turn and then the last one again.
func newReplayFunc(rec *Recording) (nltest.Func, error) {
	type key struct {
		typ  netlink.HeaderType
		dump bool
		data string
	}
	queues := map[key][][]netlink.Message{}
	for i, ex := range rec.Exchanges {
		var req netlink.Message
		if err := req.UnmarshalBinary(ex.Request); err != nil {
			return nil, fmt.Errorf("inspect: replay: recorded request %d: %w", i, err)
		}
		var replies []netlink.Message
		for j, b := range ex.Replies {
			var m netlink.Message
			if err := m.UnmarshalBinary(b); err != nil {
				return nil, fmt.Errorf("inspect: replay: recorded reply %d.%d: %w", i, j, err)
			}
			replies = append(replies, m)
		}
		k := key{req.Header.Type, req.Header.Flags&netlink.Dump == netlink.Dump, string(req.Data)}
		queues[k] = append(queues[k], replies)
	}
	var mu sync.Mutex
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
			queues[k] = q[1:] // the last reply set answers every later ask
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
	}, nil
}
