//go:build lab

package cli

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
	"github.com/verbscope/verbscope/rec"
)

// TestRecordShortLivedLab: `verbscope record` (trace on, a reading
// every 5 s) while another process creates QPs, takes each to RTS and
// destroys it as fast as it can for 10 s: most of them live and die
// between two readings, and the recording keeps them as lifetimes known
// from trace alone (traced_only, from the first traced modify to the
// traced destroy, in their last state), so `record export` names the
// QPs no reading showed. Stopped as soon as the churn ends, record
// takes one last reading once trace handed over what the kernel traced
// (rec.Run): every QP the churn made is in the file, unless trace
// counted events lost.
func TestRecordShortLivedLab(t *testing.T) {
	labkit.Clean(t)
	path := filepath.Join(t.TempDir(), "short.vsrec")
	recorder := labkit.Start(t, "verbscope", "record", "-o", path, "--interval", "5s")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("recorder:\n%s", recorder.Output())
		}
	})
	labkit.WaitFor(t, labkit.Attach, "trace attached in the recorder", func() bool {
		return strings.Contains(recorder.Output(), "programs attached")
	})
	has := recordHas(path)
	labkit.WaitFor(t, labkit.Step, "a reading in the file", func() bool { return has(`"lifetimes":[`) })
	pid, wait := qpholder.StartChurn(t, 10*time.Second)
	qps, _ := wait()
	recorder.Signal(syscall.SIGINT)
	if code := recorder.Exit(t, labkit.Step); code != 0 {
		t.Fatalf("record stopped by SIGINT: status %d", code)
	}
	if out := recorder.Output(); !strings.Contains(out, "one last reading") || strings.Contains(out, "without a last reading") {
		t.Errorf("record's output at the stop: want it to take one last reading:\n%s", out)
	}
	out, err := exec.Command("verbscope", "record", "export", path, "-j").Output()
	var doc struct {
		Lifetimes   []rec.Lifetime   `json:"lifetimes"`
		Transitions []rec.Transition `json:"transitions"`
	}
	if err == nil {
		err = json.Unmarshal(out, &doc)
	}
	if err != nil {
		t.Fatalf("record export -j: %v\n%s", err, out)
	}
	var seen, traced int
	for _, l := range doc.Lifetimes {
		if l.Kind != "qp" || l.PID != pid {
			continue
		}
		if !l.TracedOnly {
			seen++
			continue
		}
		traced++
		if !l.Ended || l.End.Before(l.Start) || l.State == "" {
			t.Errorf("a traced-only lifetime %+v: want it ended, after its start, in a state", l)
		}
	}
	t.Logf("the churn made %d QPs; the recording has %d of them from its readings and %d from trace alone", qps, seen, traced)
	// What the transitions say of the churn's QPs: how many have a
	// history, and how many of those end gone.
	histories, endsGone := map[uint32]bool{}, 0
	for _, x := range doc.Transitions {
		if x.PID == pid {
			histories[x.QPN] = histories[x.QPN] || x.Gone
		}
	}
	for _, g := range histories {
		if g {
			endsGone++
		}
	}
	t.Logf("%d of the churn's QPs have a history in the recording, %d of them ending gone", len(histories), endsGone)
	lost := false
	if info, err := exec.Command("verbscope", "record", "info", path, "-j").Output(); err == nil {
		var in struct {
			Gaps []rec.Gap `json:"gaps"`
		}
		json.Unmarshal(info, &in)
		for _, g := range in.Gaps {
			t.Logf("the recording's gap at %s: %s: %s", g.Time.Format("15:04:05.000"), g.What, g.Detail)
			lost = lost || g.What == "trace lost"
		}
	}
	if traced == 0 {
		t.Errorf("no QP of the churn (pid %d) known from trace alone, of %d made and %d a reading showed", pid, qps, seen)
	}
	switch {
	case seen+traced > qps:
		t.Errorf("%d lifetimes of the churn's QPs, more than the %d it made", seen+traced, qps)
	case seen+traced < qps && !lost:
		t.Errorf("%d lifetimes of the churn's QPs, of the %d it made, and trace lost nothing", seen+traced, qps)
	}
}
