package doctor

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/inspect"
)

// TestRenderTextEscapesComm: a leaked object's owner names itself; its
// escape sequences reach the text report quoted and the JSON exact.
func TestRenderTextEscapesComm(t *testing.T) {
	const comm = "\x1b]0;owned\x07\x1b[2J"
	r := &Report{Checks: []Result{{ID: "leaks", Title: "Objects of dead processes", Verdict: Warn,
		Summary:  "1 QP of " + comm + "[42]",
		Evidence: []Evidence{{What: comm + "[42] QP 17", Value: comm, Source: "netlink RES_QP_GET", Verdict: Warn}}}}}
	var text, js bytes.Buffer
	if err := RenderText(&text, r); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(text.String(), "\x1b\x07") {
		t.Errorf("text report holds the comm's control bytes:\n%q", text.String())
	}
	if !strings.Contains(text.String(), `\x1b]0;owned\x07\x1b[2J`) {
		t.Errorf("text report does not show the comm quoted:\n%s", text.String())
	}
	if err := RenderJSON(&js, r, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `\u001b]0;owned\u0007\u001b[2J`) {
		t.Errorf("JSON report lost the comm's exact bytes:\n%s", js.String())
	}
}

// TestFixEscapesHolderComm: the leaks check's fix names the process that
// keeps a dead one's objects alive, by the name that process chose. The
// fix lines doctor, the shell's doctor and the dashboard print carry it
// quoted; the JSON keeps it exact.
func TestFixEscapesHolderComm(t *testing.T) {
	const comm = "\x1b]0;owned\x07\x1b[2J"
	f := leakFacts(inspect.OwnerZombie, "doctor.test")(t)
	f.Holders[0].Comm = comm
	rep := Run(f, mustSelect(t, "leaks"))
	c := rep.Checks[0]
	if !slices.ContainsFunc(c.Fix, func(s string) bool { return strings.Contains(s, comm) }) {
		t.Fatalf("no fix names the holder; fixes: %q", c.Fix)
	}
	for _, l := range c.FixLines() {
		if strings.ContainsAny(l, "\x1b\x07") {
			t.Errorf("fix line holds the comm's control bytes: %q", l)
		}
	}
	var text, js bytes.Buffer
	if err := RenderText(&text, rep); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(text.String(), "\x1b\x07") {
		t.Errorf("text report holds the comm's control bytes:\n%q", text.String())
	}
	if !strings.Contains(text.String(), `fix: kill 4330 (\x1b]0;owned\x07\x1b[2J)`) {
		t.Errorf("text report does not show the holder quoted in its fix:\n%s", text.String())
	}
	if err := RenderJSON(&js, rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `kill 4330 (\u001b]0;owned\u0007\u001b[2J)`) {
		t.Errorf("JSON fix lost the comm's exact bytes:\n%s", js.String())
	}
}

func mustSelect(t *testing.T, ids ...string) []Check {
	t.Helper()
	sel, err := Select(ids)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}
