package dash

import (
	"strings"
	"testing"

	"github.com/verbscope/verbscope/doctor"
)

// TestDoctorRowsEscape: a leak's fix and evidence name a process by the
// name it chose; the doctor view gets them quoted, never its raw escape
// sequences.
func TestDoctorRowsEscape(t *testing.T) {
	const comm = "\x1b]0;owned\x07\x1b[2J"
	rep := &doctor.Report{Checks: []doctor.Result{{ID: "leaks", Title: "Objects of dead processes", Verdict: doctor.Fail,
		Summary:  "1 QP kept alive by pid 4330 (" + comm + ")",
		Evidence: []doctor.Evidence{{What: "/dev/infiniband/uverbs0", Value: "pid 4330 (" + comm + ") fd 3", Verdict: doctor.Fail}},
		Fix:      []string{"kill 4330 (" + comm + "), or make it close fd 3"}}}}
	rows := doctorRows(rep)
	if len(rows) != 1 {
		t.Fatalf("doctorRows: %d rows, want 1", len(rows))
	}
	r := rows[0]
	for _, s := range append(append([]string{r.Summary}, r.Evidence...), r.Fix...) {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("doctor view text holds the comm's control bytes: %q", s)
		}
	}
	if want := `kill 4330 (\x1b]0;owned\x07\x1b[2J)`; len(r.Fix) != 1 || !strings.HasPrefix(r.Fix[0], want) {
		t.Errorf("fix %q, want it to begin %q", r.Fix, want)
	}
}
