//go:build lab

package verbs

import (
	"strings"
	"testing"
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
