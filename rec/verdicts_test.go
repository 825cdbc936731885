package rec

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/diagnose"
)

func summaries(vs []diagnose.Verdict) []string {
	var out []string
	for i := range vs {
		out = append(out, vs[i].Summary())
	}
	return out
}

// A recording keeps the diagnosis's verdicts: the victim's QP, moved to
// ERR by a traced shell at reading 3, is flushed from then on; its
// verdict is written when it begins and again whole at each keyframe,
// not at every reading; a Player delivers the verdicts as they stood at
// the reading it shows.
func TestVerdictsRecorded(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 2}))
	ctx := context.Background()
	res, err := r.Readings(ctx, "res")
	if err != nil {
		t.Fatal(err)
	}
	flushed := []string{"rxe0 qp 30 flushed (moved to ERR by verbscope[400])"}
	var got [][]string
	for _, rd := range res {
		vs, err := r.verdictsAt(ctx, rd.Seq)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, summaries(vs))
	}
	if diff := cmp.Diff([][]string{nil, nil, flushed, flushed, flushed}, got); diff != "" {
		t.Errorf("the verdicts at each reading (-want +got):\n%s", diff)
	}
	var ops []string
	if err := r.each(ctx, "SELECT op FROM verdicts ORDER BY id", func(rows *sql.Rows) error {
		var op string
		err := rows.Scan(&op)
		ops = append(ops, op)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// Keyframes at readings 1, 3 and 5: the begin at 3 is the verdict
	// there; 5 writes it again whole.
	if diff := cmp.Diff([]string{"begin", "key"}, ops); diff != "" {
		t.Errorf("the verdicts table's rows (-want +got):\n%s", diff)
	}

	p, err := NewPlayer(ctx, r, res[3].Time)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	select {
	case v := <-p.Verdicts():
		if v.Seq != 4 || !v.Time.Equal(res[3].Time) || !cmp.Equal(summaries(v.List), flushed) {
			t.Errorf("the Player's verdicts at reading 4: %d at %s: %v, want %v", v.Seq, v.Time, summaries(v.List), flushed)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no verdicts from the Player")
	}
}
