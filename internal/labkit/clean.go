package labkit

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"
)

// Clean makes a lab test fail if it leaves a verbs object behind. Call it
// first in the test: its check runs after the test's other cleanups (which
// end what the test started), waits up to Release for the kernel to
// release what they held, and fails the test, naming each object left and
// its owner, if the host has more objects than when the test began. So a
// leak fails the test that made it, not the ones after it.
//
// It also logs how busy the guest's CPUs were over the test (busyLog):
// the lab runner lists the costliest tests by it, the figure to cut
// when the suite is too slow, since the host's cores are what the two
// VMs share.
func Clean(t testing.TB) {
	t.Helper()
	busy0, busyErr := cpuBusy()
	if busyErr == nil {
		start := time.Now()
		t.Cleanup(func() {
			if busy, err := cpuBusy(); err == nil {
				t.Logf("%s %.1f s in %.1f s", busyLog, (busy - busy0).Seconds(), time.Since(start).Seconds())
			}
		})
	}
	before, err := objectCounts()
	if err != nil {
		t.Fatalf("labkit: count the host's verbs objects: %v", err)
	}
	t.Cleanup(func() {
		var now map[string]int
		left := func() bool {
			now, err = objectCounts()
			if err != nil {
				return true
			}
			for k, n := range now {
				if n > before[k] {
					return true
				}
			}
			return false
		}
		start := time.Now()
		for left() && time.Since(start) < Release {
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Errorf("labkit: count the host's verbs objects: %v", err)
			return
		}
		if !left() {
			NoteWait(t, "the test's verbs objects to be released", time.Since(start), Release)
			return
		}
		var more []string
		for k, n := range now {
			if n > before[k] {
				more = append(more, fmt.Sprintf("%s %d (was %d)", k, n, before[k]))
			}
		}
		sort.Strings(more)
		t.Errorf("labkit: the test left verbs objects behind %v after it ended: %s\n%s",
			Release, strings.Join(more, ", "), userObjects())
	})
}

// objectCounts is `rdma -j resource show`: per device, how many objects of
// each kind exist (the kernel's own included).
func objectCounts() (map[string]int, error) {
	out, err := exec.Command("rdma", "-j", "resource", "show").Output()
	if err != nil {
		return nil, fmt.Errorf("rdma -j resource show: %w", err)
	}
	var devs []map[string]any
	if err := json.Unmarshal(out, &devs); err != nil {
		return nil, fmt.Errorf("rdma -j resource show: %w", err)
	}
	counts := map[string]int{}
	for _, d := range devs {
		name, _ := d["ifname"].(string)
		for k, v := range d {
			if n, ok := v.(float64); ok && k != "ifindex" {
				counts[name+" "+k] = int(n)
			}
		}
	}
	return counts, nil
}

// userObjects lists the objects that belong to a process, as `rdma
// resource show KIND` prints them, for a failure message.
func userObjects() string {
	var b strings.Builder
	for _, k := range []string{"qp", "cq", "mr", "pd", "ctx", "srq", "cm_id"} {
		out, _ := exec.Command("rdma", "resource", "show", k).Output()
		for _, l := range strings.Split(string(out), "\n") {
			if strings.Contains(l, " pid ") {
				fmt.Fprintf(&b, "  %s %s\n", k, l)
			}
		}
	}
	return b.String()
}
