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

// TestRunEndings: how a script's failed command ends a run, and where it
// is said, with and without KeepGoing and Course (learn --plain: a
// refusal is part of the lesson). The build host has no device; ls and
// help need none.
func TestRunEndings(t *testing.T) {
	for _, tc := range []struct {
		name             string
		o                Options
		want             error
		wantOut, wantErr string // each must hold this
		notOut           string // Out must not hold this
	}{
		{name: "stops at the refusal", o: Options{Commands: "ls extra; help"},
			want: Failed, wantOut: "> ls extra\n", wantErr: "line 1: ", notOut: "> help"},
		{name: "keep going", o: Options{Commands: "ls extra; help", KeepGoing: true},
			want: Failed, wantOut: "> help\n", wantErr: "line 1: "},
		{name: "course", o: Options{Commands: "ls extra; help", Course: true},
			want: nil, wantOut: "line 1: "},
		{name: "all fine", o: Options{Commands: "help ls"}, want: nil, wantOut: "> help ls\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errw bytes.Buffer
			var face string
			tc.o.Out, tc.o.Err = &out, &errw
			tc.o.Open = func(f string) front.Engine { face = f; return shell.New(shell.Options{}) }
			err := Run(context.Background(), tc.o)
			if err != tc.want {
				t.Errorf("Run: %v, want %v", err, tc.want)
			}
			if face != "script" {
				t.Errorf("opened as %q, want script", face)
			}
			if !strings.Contains(out.String(), tc.wantOut) || (tc.notOut != "" && strings.Contains(out.String(), tc.notOut)) {
				t.Errorf("out %q: want %q in it, not %q", out.String(), tc.wantOut, tc.notOut)
			}
			if !strings.Contains(errw.String(), tc.wantErr) || (tc.wantErr == "" && errw.Len() > 0) {
				t.Errorf("err %q, want %q", errw.String(), tc.wantErr)
			}
		})
	}
}
