package cli

import (
	"strings"
	"testing"
)

func TestLearnArgs(t *testing.T) {
	for _, tc := range []struct {
		check bool
		args  []string
		start int
		dir   string
		err   string
	}{
		{args: nil},
		{args: []string{"3"}, start: 3},
		{check: true, args: []string{"./pack"}, dir: "./pack"},
		{check: true, args: []string{"2"}, err: "takes a pack's directory, not a lesson number"},
		{args: []string{"two"}, err: `"two" is not a lesson number`},
		{args: []string{"0"}, err: `"0" is not a lesson number`},
		{args: []string{"1", "2"}, err: `unexpected argument "2"`},
	} {
		lo := learnOptions{check: tc.check}
		err := lo.args(tc.args)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
		case tc.err == "" && (err != nil || lo.start != tc.start || lo.dir != tc.dir):
			t.Errorf("%v: start %d dir %q err %v, want %d %q", tc.args, lo.start, lo.dir, err, tc.start, tc.dir)
		}
	}
}
