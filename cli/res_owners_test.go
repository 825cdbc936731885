package cli

import (
	"strings"
	"testing"

	"github.com/verbscope/verbscope/owners"
)

func TestResOwnersArgs(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		by      owners.By
		filters string
		err     string
	}{
		{args: []string{"owners"}, by: owners.ByProcess},
		{args: []string{"show", "owners", "by", "unit"}, by: owners.ByUnit},
		{args: []string{"owners", "by", "pod", "flags", "memlock"}, by: owners.ByPod, filters: "flags=memlock"},
		{args: []string{"owners", "by", "container", "qp=2-9", "comm", "ib_"}, by: owners.ByContainer, filters: "qp=2-9 comm=ib_"},
		{args: []string{"owners", "unit", "x.service"}, by: owners.ByProcess, filters: "unit=x.service"},
		{args: []string{"owners", "by", "host"}, by: owners.ByHost},
		{args: []string{"owners", "by"}, err: "by needs process, unit, container, pod or host"},
		{args: []string{"owners", "by", "node"}, err: `group by "node": want process, unit, container, pod or host`},
		{args: []string{"owners", "by", "host", "pid", "1"}, err: `by host prints one line, the host's: it takes no filters, got "pid 1"`},
		{args: []string{"owners", "lqpn", "1"}, err: `"lqpn" is not a filter of owners; its filters are pid, comm, user, unit`},
		{args: []string{"owners", "flags", "hot"}, err: `"hot" can never match`},
	} {
		r, err := parseResArgs(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if r.object != resOwnersWord || r.by != tc.by || r.filters.String() != tc.filters {
			t.Errorf("%v: got %q by %q filters %q, want by %q filters %q", tc.args, r.object, r.by, r.filters, tc.by, tc.filters)
		}
	}
}
