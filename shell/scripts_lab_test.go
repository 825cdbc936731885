//go:build lab

package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/shell/front"
)

// step is one command of a script and what it must produce: substrings
// of its text (ok) or of its error (fail).
type step struct {
	cmd  string
	ok   []string
	fail []string
}

// runSteps runs a script on a fresh session on the lab's rxe0, checking
// each step, and closes the session.
func runSteps(t *testing.T, steps []step) *Shell {
	t.Helper()
	s := New(Options{Device: os.Getenv("LAB_DEV")})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	for _, st := range steps {
		// Every command of the step must succeed, except that the last
		// one must fail when fail is given; the step's combined output
		// must hold ok (or the last error must hold fail).
		lines := front.Lines(st.cmd)
		var out strings.Builder
		for i, l := range lines {
			cmd := l.Text
			res, err := s.Exec(context.Background(), cmd)
			var se *Error
			if err != nil && !errors.As(err, &se) {
				t.Errorf("%q: %T %v is not a structured *Error", cmd, err, err)
			}
			last := i == len(lines)-1
			switch {
			case err != nil && (!last || len(st.fail) == 0):
				t.Fatalf("%q failed: %v", cmd, err)
			case err == nil && last && len(st.fail) > 0:
				t.Fatalf("%q succeeded, but should fail with %q; it said:\n%s", cmd, st.fail, res.Text)
			case err != nil:
				for _, w := range st.fail {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%q: error lacks %q:\n%v", cmd, w, err)
					}
				}
				t.Logf("> %s\n%v", cmd, err)
				continue
			}
			fmt.Fprintf(&out, "%s\n", res.Text)
			t.Logf("> %s\n%s", cmd, res.Text)
		}
		for _, w := range st.ok {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%q: output lacks %q:\n%s", st.cmd, w, out.String())
			}
		}
	}
	return s
}

const setup = "open; pd; cq size=64; qp type=rc cq=cq1; qp type=rc cq=cq1"

// TestSeedPingPong is the first seed's program as a script: two RC QPs,
// 4 KiB buffers, "PING" and "PONG" alternating, round trips timed.
func TestSeedPingPong(t *testing.T) {
	labkit.Clean(t)
	steps := []step{
		{cmd: setup + "; mr size=4096 access=local_write; mr size=4096 access=local_write", ok: []string{"mr2 = 4096 bytes"}},
		{cmd: "connect qp1 qp2", ok: []string{"are connected and in RTS"}},
		{cmd: `write mr1[0] "PING"; write mr2[0] "PONG"`},
	}
	for i := 0; i < 5; i++ {
		steps = append(steps,
			step{cmd: "post recv qp2 mr2[2048:4096]; post recv qp1 mr1[2048:4096]; stopwatch start"},
			step{cmd: "post send qp1 mr1[0:4]; poll cq1 max=2", ok: []string{`4 bytes into mr2: "PING"`}},
			step{cmd: "post send qp2 mr2[0:4]; poll cq1 max=4", ok: []string{`4 bytes into mr1: "PONG"`}},
			step{cmd: "poll cq1 wait=1s"},
			step{cmd: "stopwatch lap", ok: []string{"since start"}},
		)
	}
	runSteps(t, steps)
}

// TestRefusedRTRFixedByTheNextLine is the first teaching moment.
func TestRefusedRTRFixedByTheNextLine(t *testing.T) {
	labkit.Clean(t)
	runSteps(t, []step{
		{cmd: setup},
		{cmd: "next qp1; next qp2", ok: []string{"qp2 is now INIT"}},
		{cmd: "modify qp1 rtr path_mtu=1024 rq_psn=0 max_dest_rd_atomic=1 min_rnr_timer=12 dgid=10.0.0.1",
			fail: []string{"refused before the kernel saw it", "EINVAL", "DEST_QPN", "the peer QP"}},
		{cmd: "modify qp1 rtr path_mtu=1024 rq_psn=0 max_dest_rd_atomic=1 min_rnr_timer=12 dgid=10.0.0.1 dest_qpn=qp2",
			ok: []string{"qp1 is now RTR"}},
		{cmd: "modify qp2 rts", fail: []string{"INIT→RTS is not a transition"}},
		{cmd: "modify qp2 rts --force", fail: []string{"the kernel refused", "EINVAL"}},
	})
}

// TestErrorPaths reproduces each error path of the verbs core issue as a
// short script, with the shell's explanation before and after.
func TestErrorPaths(t *testing.T) {
	labkit.Clean(t)
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"remote write without REMOTE_WRITE", []step{
			{cmd: setup + "; mr access=local_write; mr access=local_write; connect qp1 qp2"},
			{cmd: "post write qp1 mr1[0:4] mr2[0]", fail: []string{"mr2 was registered without REMOTE_WRITE", "REM_ACCESS_ERR"}},
			{cmd: "post write qp1 mr1[0:4] mr2[0] --force; poll cq1", ok: []string{"REM_ACCESS_ERR", "the responder refused access"}},
		}},
		{"send without a receive, rnr_retry=0", []step{
			{cmd: setup + "; mr; mr; next qp1 peer=qp2; next qp1; next qp2 peer=qp1; next qp2; next qp2"},
			{cmd: "next qp1 rnr_retry=0", ok: []string{"set by you (yours)", "qp1 is now RTS"}},
			{cmd: "post send qp1 mr1[0:4]; poll cq1 wait=5s", ok: []string{"RNR_RETRY_EXC_ERR", "had no receive posted"}},
		}},
		{"QP to ERR with receives outstanding", []step{
			{cmd: setup + "; mr; connect qp1 qp2; post recv qp2 mr1[0:64] count=3", ok: []string{"posted 3 × RECV"}},
			{cmd: "modify qp2 err", ok: []string{"qp2 is now ERR"}},
			{cmd: "poll cq1", ok: []string{"3 completion(s)", "WR_FLUSH_ERR", "flushed"}},
		}},
		// IBTA says LOC_LEN_ERR; rxe on Linux 6.1 says LOC_QP_OP_ERR (its
		// copy into the receive's SGEs fails with EINVAL), and the sender
		// hears REM_OP_ERR. The shell explains both.
		{"receive buffer too small", []step{
			{cmd: setup + "; mr; mr; connect qp1 qp2; post recv qp2 mr2[0:2]; write mr1 PING"},
			{cmd: "post send qp1 mr1[0:4]; poll cq1 max=2 wait=5s", ok: []string{"LOC_QP_OP_ERR", "longer than the receive", "REM_OP_ERR"}},
		}},
		{"destroy a PD that still has an MR", []step{
			{cmd: "open; pd; mr"},
			{cmd: "destroy pd1", fail: []string{"EBUSY", "still in use", "MR lkey"}},
			{cmd: "destroy pd1 --cascade", ok: []string{"destroyed mr1, pd1"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { runSteps(t, tc.steps) })
	}
}

// TestCQTooSmall is the seed's CQ-depth-16 story: 40 messages into a
// receive CQ asked for 16 entries. rxe grants 31, keeps those intact, and
// raises CQ_ERR for each completion that finds no room; the receiving QP
// goes to ERR. (rxe on 6.1 raises no QP error events at all; CQ_ERR is
// the async event a learner sees.)
func TestCQTooSmall(t *testing.T) {
	labkit.Clean(t)
	s := runSteps(t, []step{
		{cmd: "open; pd; cq size=64; cq size=16; mr size=4096; mr size=4096",
			ok: []string{"cq2 = completion queue with 31 entries (asked for 16"}},
		{cmd: "qp cq=cq1 send_wr=64 recv_wr=64; qp send_cq=cq1 recv_cq=cq2 send_wr=64 recv_wr=64; connect qp1 qp2"},
		{cmd: "post recv qp2 mr2[0:64] count=40; post send qp1 mr1[0:64] count=40", ok: []string{"posted 40 × SEND"}},
	})
	var events string
	for i := 0; i < 50 && !strings.Contains(events, "CQ_ERR"); i++ {
		res, err := s.Exec(context.Background(), "events")
		if err != nil {
			t.Fatal(err)
		}
		events = res.Text
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(events, "CQ_ERR on cq2") || !strings.Contains(events, "overrun") {
		t.Errorf("events after overrunning cq2:\n%s", events)
	}
	res, err := s.Exec(context.Background(), "poll cq2 max=64")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "31 completion(s)") {
		t.Errorf("cq2 should hold exactly its 31 entries:\n%s", res.Text)
	}
	res, err = s.Exec(context.Background(), "ls")
	if err != nil || !strings.Contains(res.Text, "qp2    RC QP") || !strings.Contains(res.Text, ", ERR") {
		t.Errorf("qp2 should be in ERR after its CQ overran:\n%s %v", res.Text, err)
	}
}
