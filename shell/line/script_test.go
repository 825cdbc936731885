package line

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/shell"
	"github.com/verbscope/verbscope/shell/front"
)

// TestScriptJSONRefusal: a refused command's --json record keeps what,
// why and fix apart, next to the rendered error, and the script stops
// with status 1 (the build host has no device; these need none).
func TestScriptJSONRefusal(t *testing.T) {
	sh := shell.New(shell.Options{})
	defer sh.Close()
	var out, errw bytes.Buffer
	err := runScript(context.Background(), sh, strings.NewReader("help ls # a comment\nls extra; help\n"), Options{JSON: true, Out: &out, Err: &errw})
	if code, ok := err.(Status); !ok || code != 1 {
		t.Fatalf("runScript: %v, want exit status 1", err)
	}
	var recs []map[string]any
	dec := json.NewDecoder(&out)
	for dec.More() {
		var r map[string]any
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2 (the script stops at the refusal): %v", len(recs), recs)
	}
	if recs[0]["command"] != "help ls" || recs[0]["line"] != 1.0 || recs[0]["result"] == nil {
		t.Errorf("first record %v", recs[0])
	}
	want := map[string]any{"what": `ls takes at most 0 argument(s); "extra" is one too many`, "fix": "usage: ls   (help ls shows examples)"}
	if diff := cmp.Diff(want, recs[1]["refusal"]); diff != "" || recs[1]["line"] != 2.0 || !strings.Contains(recs[1]["error"].(string), "fix: usage: ls") {
		t.Errorf("refusal record %v (-want +got refusal):\n%s", recs[1], diff)
	}
}

// printProgress shows a running command's progress, and the course's
// steps done between commands whenever they come.
func TestPrintProgress(t *testing.T) {
	events := make(chan front.Event, 4)
	events <- front.Event{Kind: front.EventProgress, Text: "listening on TCP port 18515"}
	events <- front.Event{Kind: front.EventLesson, Text: "✓ The kernel moved qp1\n\nStep 4 of 5"}
	events <- front.Event{Kind: front.EventAsync, Text: "CQ_ERR on cq1"}
	close(events)
	var idle atomic.Bool
	var b bytes.Buffer
	printProgress(events, &idle, &b)
	if want := "\n✓ The kernel moved qp1\n\nStep 4 of 5\n"; b.String() != want {
		t.Errorf("between commands: %q, want %q", b.String(), want)
	}
}
