package inspect

import (
	"context"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/view"
)

// The dashboard's "/" words (view.ParseFilterWords) on the rows of a
// recorded rping: iproute2's key=value and plain substrings of the text,
// with this package's value sets.
func TestFilterWordsOnRecordedRows(t *testing.T) {
	s, err := replayConn(t, loadRecording(t, "rping")).Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind, line, want string
	}{
		{"qp", "", "36 37 1"},
		{"qp", "state=RTS type=RC", "36 37"},
		{"qp", "type=GSI", "1"},
		{"qp", "pid 202", "37"},
		{"qp", "ib_core", "1"},
		{"qp", "rping state=RTS", "36 37"},
		{"qp", "link=rxe0/1 lqpn=1", "1"},
		{"qp", "dev=rxe0 port=1", "36 37 1"},
		{"qp", "nothing-like-this", ""},
		{"cm_id", "LISTEN", "id0"},
		{"cm_id", "ps=TCP state=LISTEN", "id0"},
	} {
		flt, err := view.ParseFilterWords(tc.kind, strings.Fields(tc.line))
		if err != nil {
			t.Errorf("%s %q: %v", tc.kind, tc.line, err)
			continue
		}
		var got []string
		for _, r := range snapshotRows(s, tc.kind) {
			if !flt.Match(r) {
				continue
			}
			f, ok := r.Get("lqpn")
			if tc.kind == "cm_id" {
				f, ok = r.Get("cm-idn")
				f.Text = "id" + f.Text
			}
			if ok {
				got = append(got, f.Text)
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.kind, tc.line, g, tc.want)
		}
	}
	for _, bad := range []string{"state=BOGUS", "type=XX", "nope=1", "pid", "lqpn=x"} {
		if _, err := view.ParseFilterWords("qp", strings.Fields(bad)); err == nil {
			t.Errorf("qp %q: no error", bad)
		}
	}
}
