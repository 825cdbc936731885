package view

import (
	"strings"
	"testing"
)

// FuzzParseFilterWords: any line typed into a filter parses or fails,
// never panics; what parses matches rows without panicking, and each
// keyed filter parses again from its own key and value.
func FuzzParseFilterWords(f *testing.F) {
	for _, s := range []string{"", "rxe0", "rxe0/1 state=RTS", "lqpn 0-6,17 type v2", "link=/", "state", "= =",
		"lqpn=18446744073709551615", "lqpn=1-", "dev=a/b", "comm \xff", "link rxe0/-", "x y z"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	rows := []Row{
		qpRow("rxe0", 1, 17, "RTS", "RoCE v2", "ibv_rc_pingpong"),
		qpRow("rxe0", 0, 18, "RESET", "RoCE v1", "ib_core"),
		{{Key: "lqpn", Value: []string{"20-35", "x", "9-3"}}},
		nil,
	}
	f.Fuzz(func(t *testing.T, line string, command bool) {
		parse := ParseFilterWords
		if command {
			parse = ParseCommandWords
		}
		flt, err := parse("test-qp", strings.Fields(line))
		if err != nil {
			return
		}
		for _, r := range rows {
			_ = flt.Match(r)
		}
		_ = flt.String()
		_ = flt.Devices()
		for _, x := range flt {
			if x.Key == "" {
				continue
			}
			if _, err := ParseFilter("test-qp", x.Key, x.Value); err != nil {
				t.Fatalf("%q parsed as %s=%s, which does not parse again: %v", line, x.Key, x.Value, err)
			}
		}
	})
}
