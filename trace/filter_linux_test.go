package trace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFilter(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    Filter
		wantErr string
	}{
		{args: nil, want: Filter{}},
		{args: []string{"pid=812", "comm=ibv_rc_pingpong"}, want: Filter{PID: 812, Comm: "ibv_rc_pingpong"}},
		{args: []string{"qpn=0x11", "dev=rxe0"}, want: Filter{QPN: 17, HasQPN: true, Dev: "rxe0"}},
		{args: []string{"qpn=0"}, want: Filter{QPN: 0, HasQPN: true}},
		{args: []string{"pid"}, wantErr: "want NAME=VALUE"},
		{args: []string{"pid="}, wantErr: "want NAME=VALUE"},
		{args: []string{"pid=-3"}, wantErr: "positive number"},
		{args: []string{"qpn=0x1000000"}, wantErr: "0 to 0xffffff"},
		{args: []string{"dev=a", "dev=b"}, wantErr: "given twice"},
		{args: []string{"lqpn=3"}, wantErr: `unknown filter "lqpn"`},
	} {
		got, err := ParseFilter(tc.args)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseFilter(%q) = %v, want an error with %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseFilter(%q): %v", tc.args, err)
			continue
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ParseFilter(%q) (-want +got):\n%s", tc.args, d)
		}
	}
}

// TestFilterMatch counts the recorded events each filter keeps.
func TestFilterMatch(t *testing.T) {
	events := replay(t, "testdata/pingpong.hex", nil)
	count := func(f Filter) (n int) {
		for i := range events {
			if f.match(&events[i]) {
				n++
			}
		}
		return n
	}
	all := count(Filter{})
	if all != len(events) {
		t.Fatalf("the empty filter kept %d of %d events", all, len(events))
	}
	byComm := count(Filter{Comm: "ibv_rc_pingpong"}) + count(Filter{Comm: "verbscope"})
	if byComm != all {
		t.Errorf("comm=ibv_rc_pingpong and comm=verbscope keep %d events together, want all %d", byComm, all)
	}
	// One QP's life: create, RESET→INIT, INIT→RTR, RTR→RTS, destroy.
	if n := count(Filter{QPN: 17, HasQPN: true, Dev: "rxe0"}); n != 5 {
		t.Errorf("qpn=17 dev=rxe0 kept %d events, want 5", n)
	}
	if n := count(Filter{Dev: "mlx5_0"}); n != 0 {
		t.Errorf("dev=mlx5_0 kept %d events of rxe0", n)
	}
	if n := count(Filter{Comm: "a-name-longer-than-15-bytes"}); n != 0 {
		t.Errorf("an unknown long comm kept %d events", n)
	}
	pid := events[0].PID
	for i := range events {
		if (events[i].PID == pid) != (Filter{PID: pid}).match(&events[i]) {
			t.Errorf("pid=%d disagrees on %s", pid, events[i].Text())
		}
	}
}
