package doctor

import (
	"bytes"
	"strings"
	"testing"
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
