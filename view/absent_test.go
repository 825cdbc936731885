package view

import (
	"errors"
	"testing"
)

// A device or port the words name that the host lacks is refused as an
// AbsentError listing what it has; one it has passes.
func TestCheckAbsent(t *testing.T) {
	Register(Schema{Kind: "absent-test", Bare: "link", Keys: []Key{{Name: "link", Field: "dev", Match: MatchLink}, {Name: "dev", Match: MatchDevice}}})
	ports := map[string][]uint32{"rxe0": {1}, "mlx5_0": {1, 2}, "bare0": {}}
	for _, tc := range []struct {
		words []string
		names []string
		want  string // "" passes
	}{
		{words: []string{"rxe0/1"}, names: []string{"rxe0"}},
		{words: []string{"dev", "nope0"}, names: []string{"rxe0", "mlx5_0"}, want: `no RDMA device "nope0"; there are: rxe0, mlx5_0`},
		{words: []string{"dev", "nope0"}, want: `no RDMA device "nope0": this host has none`},
		{words: []string{"mlx5_0/3"}, names: []string{"mlx5_0"}, want: "mlx5_0 has no port 3; its ports are: 1, 2"},
		{words: []string{"bare0/1"}, names: []string{"bare0"}, want: "bare0 has no port 1: it has no ports"},
		{words: []string{"link", "rxe0/1,mlx5_0/2"}, names: []string{"rxe0", "mlx5_0"}},
	} {
		flt, err := ParseCommandWords("absent-test", tc.words)
		if err != nil {
			t.Fatalf("%v: %v", tc.words, err)
		}
		err = flt.CheckDevices(tc.names)
		if err == nil {
			err = flt.CheckPorts(ports)
		}
		var absent *AbsentError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v, want it to pass", tc.words, err)
		case tc.want != "" && (!errors.As(err, &absent) || absent.What != tc.want):
			t.Errorf("%v: %v, want an AbsentError %q", tc.words, err, tc.want)
		}
	}
}
