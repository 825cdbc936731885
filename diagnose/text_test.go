package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
)

// WriteText says what was judged when nothing needs a look, and puts a
// blank line between two verdicts; WriteJSON's empty list is [].
func TestWriteVerdicts(t *testing.T) {
	k := inspect.Key{Dev: "rxe0", ID: 17}
	v := Verdict{Since: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	lines := len(v.Lines())
	for _, tc := range []struct {
		name string
		vs   []Verdict
		only *inspect.Key
		want []string // lines of the text; nil: compare only the count
		n    int
	}{
		{name: "none", want: []string{"no QP needs a look: nothing stuck, failed or left by an exited process"}},
		{name: "none of one", only: &k, want: []string{k.String() + " needs a look: nothing stuck, failed or left by an exited process"}},
		{name: "two", vs: []Verdict{v, v}, n: 2*lines + 1},
	} {
		var b strings.Builder
		if err := WriteText(&b, tc.vs, tc.only); err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if tc.want != nil {
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s: (-want +got):\n%s", tc.name, d)
			}
		} else if len(got) != tc.n || got[lines] != "" {
			t.Errorf("%s: %d lines, want %d with a blank one after the first verdict:\n%s", tc.name, len(got), tc.n, b.String())
		}
	}
	var b strings.Builder
	if err := WriteJSON(&b, nil); err != nil || b.String() != "[]\n" {
		t.Errorf("no verdicts: %q, %v; want []", b.String(), err)
	}
}
