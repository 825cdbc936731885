//go:build lab

package verbs

import (
	"strings"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

//go:noinline
func dropPD(t *testing.T, c *Context) {
	if _, err := c.AllocPD(); err != nil {
		t.Fatal(err)
	}
}

// TestLeakTrackerReportsDroppedObjects drops a PD without Close and
// expects the tracker to name it and where it was made.
func TestLeakTrackerReportsDroppedObjects(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	if err := CheckLeaks(); err != nil {
		t.Fatalf("leaks before the test: %v", err)
	}
	dropPD(t, c)
	err := CheckLeaks()
	if err == nil {
		t.Fatal("a PD dropped without Close was not reported")
	}
	for _, want := range []string{"1 object(s) were dropped without Close", "PD #", "dropPD", "leak_lab_test.go"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report lacks %q:\n%v", want, err)
		}
	}
	// The context still owns the PD: closing it destroys the PD properly.
}

//go:noinline
func dropDataObjects(t *testing.T, c *Context) {
	gid, idx := labGID(t, c)
	pd, err := c.AllocPD()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pd.RegMR(4096, rdma.AccessLocalWrite); err != nil {
		t.Fatal(err)
	}
	if _, err := pd.AllocMW(MWType2); err != nil {
		t.Fatal(err)
	}
	if _, err := pd.CreateAH(AHAttr{IsGlobal: true, PortNum: 1, GRH: GlobalRoute{DGID: gid, SGIDIndex: uint8(idx), HopLimit: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := pd.CreateSRQ(SRQAttr{MaxWR: 1, MaxSGE: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateCompChannel(); err != nil {
		t.Fatal(err)
	}
}

// TestLeakTrackerCoversDataObjects drops one object of each kind the
// data path adds, and their PD; the tracker must name every one. The
// context's Close at the end of the test destroys them (the wrappers
// are gone, the graph is not).
func TestLeakTrackerCoversDataObjects(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	if err := CheckLeaks(); err != nil {
		t.Fatalf("leaks before the test: %v", err)
	}
	dropDataObjects(t, c)
	err := CheckLeaks()
	if err == nil {
		t.Fatal("objects dropped without Close were not reported")
	}
	for _, want := range []string{"6 object(s)", "PD #", "MR lkey", "MW rkey", "AH to", "SRQ #", "completion channel", "dropDataObjects"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("report lacks %q:\n%v", want, err)
		}
	}
}
