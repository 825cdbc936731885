package dash

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProcPolicy(t *testing.T) {
	p := &procPolicy{max: 4, procs: 4}
	shares := []float64{0.9, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.3, 0.1, 0.6, 0.1}
	var got []int
	for _, s := range shares {
		got = append(got, p.next(s))
	}
	// Five quiet seconds drop to one P; a middling second only restarts
	// the count; a busy one brings every P back at once.
	want := []int{4, 4, 4, 4, 4, 1, 1, 1, 1, 4, 4}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GOMAXPROCS per second (-want +got):\n%s", diff)
	}
}
