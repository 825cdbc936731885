package inspect

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/view"
)

func TestFilters(t *testing.T) {
	rping, err := replayConn(t, loadRecording(t, "rping")).Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srq, err := replayConn(t, loadRecording(t, "srq")).Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lqpns := func(kind string, s *Snapshot, args ...string) string {
		var fs Filters
		for i := 0; i+1 < len(args); i += 2 {
			f, err := view.ParseFilter(kind, args[i], args[i+1])
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			fs = append(fs, f)
		}
		var out []string
		for _, r := range snapshotRows(s, kind) {
			if fs.Match(r) {
				f, _ := r.Get("lqpn")
				if f.Text == "" {
					f, _ = r.Get("cm-idn")
					f.Text = "id" + f.Text
				}
				out = append(out, f.Text)
			}
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		kind string
		s    *Snapshot
		args []string
		want string
	}{
		{"qp", rping, nil, "36 37 1"},
		{"qp", rping, []string{"lqpn", "0-36"}, "36 1"},
		{"qp", rping, []string{"lqpn", "1,37"}, "37 1"},
		{"qp", rping, []string{"type", "rc"}, "36 37"},
		{"qp", rping, []string{"state", "RTS,ERR", "pid", "202"}, "37"},
		{"qp", rping, []string{"pid", "0-100000"}, "36 37"}, // kernel QPs have no pid
		{"qp", rping, []string{"comm", "ib_core"}, "1"},
		{"qp", rping, []string{"link", "rxe0/1"}, "36 37 1"},
		{"qp", rping, []string{"link", "rxe0/-"}, ""},
		{"qp", rping, []string{"link", "rxe0"}, "36 37 1"},
		{"qp", rping, []string{"link", "mlx5_0/1"}, ""},
		{"qp", rping, []string{"rqpn", "37"}, "36"},
		{"qp", rping, []string{"path-mig-state", "migrated"}, "36 37"},
		{"cm_id", rping, []string{"state", "LISTEN"}, "id0"},
		{"cm_id", rping, []string{"src-port", "7174"}, "id0 37"},
		{"cm_id", rping, []string{"dst-addr", "10.0.0.1:7174"}, "36"},
		{"cm_id", rping, []string{"qp-type", "RC"}, "36 37"},
		{"srq", srq, []string{"lqpn", "30"}, "20-35"},
		{"srq", srq, []string{"lqpn", "36-40"}, ""},
		{"srq", srq, []string{"dev", "rxe0", "type", "BASIC"}, "20-35"},
	} {
		if got := lqpns(tc.kind, tc.s, tc.args...); got != tc.want {
			t.Errorf("%s %v: got %q, want %q", tc.kind, tc.args, got, tc.want)
		}
	}
	for _, bad := range [][3]string{
		{"qp", "lqpn", "x"}, {"qp", "lqpn", "9-3"}, {"qp", "nope", "1"}, {"qp", "state", "BOGUS"},
		{"cq", "lqpn", "1"}, {"qq", "pid", "1"}, {"qp", "pid", ""}, {"qp", "pid", ","},
	} {
		if _, err := view.ParseFilter(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("ParseFilter%v: no error", bad)
		}
	}
	ctx, _ := view.Lookup("ctx")
	keys := ctx.KeyNames()
	slices.Sort(keys)
	if got := strings.Join(keys, " "); got != "comm ctxn dev pid" {
		t.Errorf("filter keys of ctx = %q", got)
	}
}
