//go:build lab

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

// dashPrograms is how many trace programs the dashboard (and the
// exporter's trace, trace.FeedModifies) attaches in the lab: the 7 QP
// programs (create, modify before and after for users and kernel ULPs,
// destroy before and after) and the 4 that see every object
// (rdma_restrack_add, rdma_restrack_del and rdma_restrack_commit_del,
// rxe_reg_user_mr), from which its readings are built. The count passes
// through lower numbers as they attach one by one.
const dashPrograms = 11

// bpfLinks counts the BPF links process pid holds: each attached trace
// program is one (anon_inode:bpf_link).
func bpfLinks(pid int) int {
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && l == "anon_inode:bpf_link" {
			n++
		}
	}
	return n
}

// TestDashboardTracedDetail: another process's QP (an ibv_rc_pingpong
// pair, running until the test kills it) opened in the dashboard's QP
// detail shows what its modifies set, traced from the kernel: the RTS
// entry carries timeout 14, retry_cnt 7 and rnr_retry 7, as rc_pingpong
// sets them; once trace's programs attached, the first line says so.
func TestDashboardTracedDetail(t *testing.T) {
	labkit.Clean(t)
	labkit.RaceBinary(t)
	s, pid := startDash(t, "verbscope dash --view qp --interval 500ms; echo status=$?")
	// The dashboard loads its programs in the background; the pair
	// starts once they are attached, so that every modify is seen.
	labkit.WaitFor(t, labkit.Attach, "the dashboard's trace programs", func() bool { return bpfLinks(pid) == dashPrograms })
	// Then its first line says the counts are exact (before, it said
	// "trace loading: counts not yet exact", which a quiet host may
	// replace before the first frame is drawn).
	s.waitLong("every 500ms · traced")
	srv, cli := labkit.PingpongPair(t, "-g", labkit.Env(t, "LAB_GID_INDEX"), "-e", "-n", "100000000")
	defer srv.Kill()
	defer cli.Kill()
	labkit.Throttle(t, 100*time.Millisecond, time.Second, srv, cli)
	s.key("/")
	filter := fmt.Sprintf("type=RC pid=%d state=RTS", srv.PID())
	s.keys("-l", filter)
	s.waitLong("</" + filter + ">") // the filter applies as it is typed
	s.key("Enter")
	s.waitRE(`QPs \[1/\d+\] </type=RC pid=\d+ state=RTS>`)
	s.key("Enter") // its detail
	s.waitLong("state history")
	scr := s.waitLong("timeout=14")
	for _, want := range []string{
		fmt.Sprintf("ibv_rc_pingpong[%d] modify → INIT", srv.PID()),
		fmt.Sprintf("ibv_rc_pingpong[%d] modify → RTR", srv.PID()),
		fmt.Sprintf("ibv_rc_pingpong[%d] modify → RTS", srv.PID()),
		"timeout=14 retry_cnt=7 rnr_retry=7 max_rd_atomic=1 sq_psn=0x",
		"ah_attr.hop_limit=1",
	} {
		if !strings.Contains(scr, want) {
			t.Errorf("the QP detail lacks %q:\n%s", want, scr)
		}
	}
	// Each key waits for the one before to show: an Escape read
	// together with the next key is that key with Alt.
	s.key("Escape")
	waitScreenLacks(t, s, "state history")
	s.key("Escape")
	waitScreenLacks(t, s, "</type=RC")
	s.key("q")
	s.waitLong("status=0")
}
