package inspect

import (
	"path/filepath"
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
	fn, err := newReplayFunc(rec)
	if err != nil {
		t.Fatal(err)
	}
	return fn
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
