//go:build lab

package inspect

import (
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
)

// Helpers for the lab tests: they run inside the lab VM, on rxe0, with
// rdma-core's tools and iproute2 as the oracles.

// dial opens nldev and fails the test if it cannot.
func dial(t testing.TB) *Conn {
	t.Helper()
	c, err := Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// qpsOf returns the QPs of one process.
func qpsOf(t testing.TB, c *Conn, pid uint32) []QP {
	t.Helper()
	qps, err := c.QPs(Query{})
	if err != nil {
		t.Fatal(err)
	}
	var out []QP
	for _, q := range qps {
		if q.HasPID() && q.PID == pid {
			out = append(out, q)
		}
	}
	return out
}

// allInState reports whether n QPs exist and all are in state s.
func allInState(qps []QP, n int, s QPState) bool {
	if len(qps) != n {
		return false
	}
	for _, q := range qps {
		if q.State != s {
			return false
		}
	}
	return true
}

// waitIdle waits until only the kernel's own objects are left (the
// previous scenario's processes have exited and the kernel freed their
// objects).
func waitIdle(t testing.TB, c *Conn) {
	t.Helper()
	labkit.WaitFor(t, labkit.Step, "user objects to go away", func() bool {
		sums, err := c.Summary("")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sums {
			for _, n := range []string{"ctx", "mr", "srq", "cm_id"} {
				if v, _ := s.Count(n); v != 0 {
					return false
				}
			}
			if v, _ := s.Count("qp"); v > 1 {
				return false
			}
		}
		return true
	})
}
