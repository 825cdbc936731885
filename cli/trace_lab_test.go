//go:build lab

package cli

import (
	"encoding/json"
	"strings"
	"syscall"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
)

// traceLine is what TestTraceCommand reads of one line of trace -j.
type traceLine struct {
	PID   int    `json:"pid"`
	Comm  string `json:"comm"`
	Verb  string `json:"verb"`
	QPN   uint32 `json:"qpn"`
	Ret   int    `json:"ret"`
	Attrs struct {
		State string `json:"qp_state"`
	} `json:"attrs"`
}

// TestTraceCommand runs `verbscope trace` as a person does: one with -j
// filtered by comm until Ctrl-C, one with -n 1 that ends by itself. A
// verbs shell creates a QP, moves it to INIT (next) and destroys it: the first
// prints the create, the modify (INIT, ret 0) and the destroy of the
// shell's QP with the shell's pid, and ends with status 0 on SIGINT;
// the second prints one line and exits 0 on its own.
func TestTraceCommand(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	all := labkit.Start(t, "verbscope", "trace", "-j", "comm=verbscope")
	one := labkit.Start(t, "verbscope", "trace", "-j", "-n", "1", "comm=verbscope")
	for _, p := range []*labkit.Proc{all, one} {
		labkit.WaitFor(t, labkit.Attach, "trace's programs attached", func() bool { return strings.Contains(p.Output(), "programs attached") })
	}
	sh := labkit.Start(t, "verbscope", "shell", "--dev", dev, "-c", "open; pd; cq; qp type=rc cq=cq1; next qp1")
	if code := sh.Exit(t, labkit.Run); code != 0 {
		t.Fatalf("the shell: status %d\n%s", code, sh.Output())
	}
	if code := one.Exit(t, labkit.Step); code != 0 {
		t.Errorf("trace -n 1: status %d\n%s", code, one.Output())
	}
	if n := len(jsonLines(one.Output())); n != 1 {
		t.Errorf("trace -n 1 printed %d events, want 1:\n%s", n, one.Output())
	}

	want := map[string]bool{"create_qp": false, "modify_qp": false, "destroy_qp": false}
	labkit.WaitFor(t, labkit.Step, "the QP's create, modify and destroy in trace -j", func() bool {
		for _, l := range jsonLines(all.Output()) {
			var e traceLine
			if json.Unmarshal([]byte(l), &e) != nil || e.PID != int(sh.PID()) || e.Ret != 0 {
				continue
			}
			if e.Verb == "modify_qp" && e.Attrs.State != "INIT" {
				continue
			}
			if _, ok := want[e.Verb]; ok {
				want[e.Verb] = true
			}
		}
		return want["create_qp"] && want["modify_qp"] && want["destroy_qp"]
	})
	for _, l := range jsonLines(all.Output()) {
		var e traceLine
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Comm != "verbscope" {
			t.Errorf("trace -j comm=verbscope printed %q (%v)", l, err)
		}
	}
	all.Signal(syscall.SIGINT)
	if code := all.Exit(t, labkit.Step); code != 0 {
		t.Errorf("trace ended by Ctrl-C: status %d\n%s", code, all.Output())
	}
}

// jsonLines are the lines of out that hold a JSON object (trace's
// notices are plain text).
func jsonLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "{") {
			ls = append(ls, l)
		}
	}
	return ls
}
