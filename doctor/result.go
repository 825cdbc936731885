package doctor

import (
	"fmt"
	"slices"
	"strings"
)

// Verdict is the outcome of one check.
type Verdict string

// The verdicts, from best to worst. NA means the check does not apply
// here (a software device has no interrupts; a recorded tree cannot be
// probed); Result.Summary says why.
const (
	NA   Verdict = "n/a"
	Pass Verdict = "pass"
	Warn Verdict = "warn"
	Fail Verdict = "fail"
)

// rank orders verdicts so the worst wins.
func (v Verdict) rank() int {
	switch v {
	case Pass:
		return 1
	case Warn:
		return 2
	case Fail:
		return 3
	}
	return 0
}

// Result is one check's outcome: what it found (Summary), the values it
// looked at with where each came from (Evidence), and what to do
// (Fix, empty when there is nothing to do).
type Result struct {
	ID       string     `json:"id"`
	Title    string     `json:"title"`
	Verdict  Verdict    `json:"verdict"`
	Summary  string     `json:"summary"`
	Evidence []Evidence `json:"evidence"`
	Fix      []string   `json:"fix"`
}

// Evidence is one value a check looked at.
type Evidence struct {
	// What names the value: "rxe0 port 1 state".
	What string `json:"what"`
	// Value is the value as read or computed: "4: ACTIVE".
	Value string `json:"value"`
	// Source is where it came from: a file ("/sys/class/infiniband/
	// rxe0/ports/1/state"), a netlink dump ("netlink RES_QP_GET"), or a
	// verbs call ("ibv_reg_mr").
	Source string `json:"source"`
	// Verdict is set on the values that made the check warn or fail
	// (and on each item of a check over several devices); empty for
	// context.
	Verdict Verdict `json:"verdict,omitempty"`
}

// result builds a Result: evidence raises the verdict, problems become
// the summary, fixes are kept once each in order.
type result struct {
	Result
	problems []string // what is wrong, worst first once sorted
	fine     []string // what is right, for the summary of a pass
	worst    Verdict
}

// newResult starts a result; Run fills in the check's id and title.
func newResult() *result { return &result{} }

// note adds context that does not change the verdict.
func (r *result) note(what, value, source string) {
	r.Evidence = append(r.Evidence, Evidence{What: what, Value: value, Source: source})
}

// judge adds evidence with a verdict and raises the check's verdict to it.
func (r *result) judge(v Verdict, what, value, source string) {
	r.Evidence = append(r.Evidence, Evidence{What: what, Value: value, Source: source, Verdict: v})
	r.raise(v)
}

func (r *result) raise(v Verdict) {
	if v.rank() > r.worst.rank() {
		r.worst = v
	}
}

// problem records a warning or failure for the summary and raises the
// verdict.
func (r *result) problem(v Verdict, format string, args ...any) {
	r.raise(v)
	r.problems = append(r.problems, string(v)+"\x00"+fmt.Sprintf(format, args...))
}

// ok records something that is right, for the summary of a pass.
func (r *result) ok(format string, args ...any) {
	r.raise(Pass)
	r.fine = append(r.fine, fmt.Sprintf(format, args...))
}

// fix adds an action, once.
func (r *result) fix(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if !slices.Contains(r.Fix, s) {
		r.Fix = append(r.Fix, s)
	}
}

// na ends the check as not applicable, with the reason.
func (r *result) na(format string, args ...any) Result {
	r.Verdict, r.Summary = NA, fmt.Sprintf(format, args...)
	return r.Result
}

// done sets the verdict and the summary: the failures first, then the
// warnings; for a pass, what was found right.
func (r *result) done() Result {
	r.Verdict = r.worst
	if r.Verdict == "" {
		r.Verdict = NA
	}
	var fails, warns []string
	for _, p := range r.problems {
		v, msg, _ := strings.Cut(p, "\x00")
		if Verdict(v) == Fail {
			fails = append(fails, msg)
		} else {
			warns = append(warns, msg)
		}
	}
	switch all := append(fails, warns...); {
	case len(all) > 0:
		r.Summary = strings.Join(all, "; ")
	case len(r.fine) > 0:
		r.Summary = strings.Join(r.fine, "; ")
	}
	return r.Result
}
