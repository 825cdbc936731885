package inspect

import (
	"context"
	"testing"
)

// TestKeepEqual: a whole dump that reads every object again equal hands
// over the last reading's objects, so readers see the same objects; a
// kind with one object changed keeps its new slice, the others are
// handed over.
func TestKeepEqual(t *testing.T) {
	c := replayConn(t, loadRecording(t, "rc-rts"))
	read := func() *Snapshot {
		s, err := c.Snapshot(context.Background(), SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first, again := read(), read()
	if again.SameObjects(first) {
		t.Fatal("two dumps share their objects before keepEqual")
	}
	again.keepEqual(first)
	if !again.SameObjects(first) {
		t.Errorf("a dump of the same objects does not hand them over")
	}
	changed := read()
	changed.QPs[len(changed.QPs)-1].SQPSN++
	changed.keepEqual(first)
	if changed.SameObjects(first) || &changed.QPs[0] == &first.QPs[0] {
		t.Errorf("a QP that moved: the QPs were handed over")
	}
	if len(first.CQs) == 0 || &changed.CQs[0] != &first.CQs[0] {
		t.Errorf("the CQs, read again equal, were not handed over")
	}
	var none *Snapshot
	changed.keepEqual(none) // no last reading: nothing to hand over
}
