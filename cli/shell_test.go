package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/shell"
)

func TestEnvInt(t *testing.T) {
	for _, tc := range []struct {
		val     string
		set     bool
		want    int
		wantErr bool
	}{
		{set: false, want: 7},
		{val: "", set: true, want: 7},
		{val: "3", set: true, want: 3},
		{val: "3x", set: true, wantErr: true},
		{val: " 3", set: true, wantErr: true},
	} {
		if tc.set {
			t.Setenv("VS_TEST_INT", tc.val)
		} else {
			os.Unsetenv("VS_TEST_INT")
		}
		got, err := envInt("VS_TEST_INT", 7)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("envInt with %q (set %v): %d, %v; want %d, error %v", tc.val, tc.set, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestScriptJSONRefusal: a refused command's --json record keeps what,
// why and fix apart, next to the rendered error, and the script stops
// with status 1 (the build host has no device; these need none).
func TestScriptJSONRefusal(t *testing.T) {
	sh := shell.New(shell.Options{})
	defer sh.Close()
	var out, errw bytes.Buffer
	err := runScript(context.Background(), sh, strings.NewReader("help ls # a comment\nls extra; help\n"), scriptOptions{json: true, out: &out, errw: &errw})
	if code, ok := err.(ExitError); !ok || code.Code != 1 {
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
