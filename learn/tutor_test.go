package learn

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// fakeCourse is two lessons in the fake shell's language.
func fakeCourse(t *testing.T) []Lesson {
	t.Helper()
	one := "# Objects\nMake things.\n" +
		"## A context\nMake ctx1.\n```solution\nmk ctx ctx1\n```\n```check\nexpect object ctx count=1\n```\n```hint\nmk it\n```\n```done\nctx1 made.\n```\n" +
		"## A QP\nMake qp1.\n```solution\nmk qp qp1 ctx1\n```\n```check\nexpect qp1 state=RESET\n```\n" +
		"## Refused\nBe refused.\n```solution\n! modify qp1 rtr\n```\n```check\nexpect refusal mentions=rtr\nexpect qp1 state=RESET\n```\n"
	two := "# States\nMove it.\n" +
		"## Make\nMake qp1.\n```solution\nmk qp qp1\n```\n```check\nexpect qp1\n```\n" +
		"## Move\nMove qp1 to RTS.\n```solution\nset qp1 RTS\n```\n```check\nexpect qp1 state=RTS\n```\n"
	var out []Lesson
	for name, src := range map[string]string{"01-objects.md": one, "02-states.md": two} {
		l, err := parse(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	if out[0].Number != 1 {
		out[0], out[1] = out[1], out[0]
	}
	return out
}

// tutorRig is a tutor over fake shells, remembering each one.
type tutorRig struct {
	t      *testing.T
	tutor  *Tutor
	shells []*fakeShell
	path   string
}

func newRig(t *testing.T, path string, start int) (*tutorRig, string) {
	r := &tutorRig{t: t, path: path}
	tu, text, err := NewTutor(context.Background(), TutorOptions{Lessons: fakeCourse(t), ProgressPath: path, Start: start,
		NewEngine: func() front.Engine { f := newFake(); r.shells = append(r.shells, f); return f }})
	if err != nil {
		t.Fatal(err)
	}
	r.tutor = tu
	t.Cleanup(func() { tu.Close() })
	return r, text
}

func (r *tutorRig) exec(line string) string {
	r.t.Helper()
	res, err := r.tutor.Exec(context.Background(), line)
	if err != nil {
		return "ERROR " + err.Error()
	}
	return res.Text
}

func TestTutorWalksTheCourse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "verbscope", "learn.json")
	r, text := newRig(t, path, 0)
	if !strings.Contains(text, "Lesson 1: Objects") || !strings.Contains(text, "Step 1 of 3: A context") {
		t.Errorf("opening:\n%s", text)
	}
	if got := r.exec(":hint"); !strings.Contains(got, "hint: mk it") {
		t.Errorf(":hint: %s", got)
	}
	if got := r.exec(":hint"); !strings.Contains(got, "solution:\n  mk ctx ctx1") {
		t.Errorf(":hint twice: %s", got)
	}
	if got := r.exec("mk ctx ctx1"); !strings.Contains(got, "✓ A context: ctx1 made.") || !strings.Contains(got, "Step 2 of 3: A QP") {
		t.Errorf("doing step 1:\n%s", got)
	}
	// A wrong command is not a failure: the refusal shows, the step stays.
	if got := r.exec("bogus"); !strings.HasPrefix(got, "ERROR refused: bogus") {
		t.Errorf("a refused command: %s", got)
	}
	if got := r.exec(":step"); !strings.Contains(got, "✗ expect qp1 state=RESET: there is no qp1 (yet)") {
		t.Errorf(":step: %s", got)
	}
	want := Status{Number: 1, Position: 1, Lessons: 2, Title: "Objects", Step: 2, Steps: 3, StepName: "A QP", Text: "Make qp1.",
		Checks: []CheckState{{Text: "expect qp1 state=RESET", Judged: true}}, Said: "✓ A context: ctx1 made."}
	if d := cmp.Diff(want, r.tutor.Status()); d != "" {
		t.Errorf("Status (-want +got):\n%s", d)
	}
	r.exec("mk qp qp1 ctx1")
	// The diagram's QP: the one the step's checks name, where it stands.
	if d := cmp.Diff(QPStatus{Name: "qp1", State: rdma.QPStateReset, Next: []rdma.QPState{rdma.QPStateInit}}, r.tutor.Status().QP); d != "" {
		t.Errorf("the step's QP (-want +got):\n%s", d)
	}
	// The refusal is the lesson: shown, and the step done.
	got := r.exec("modify qp1 rtr")
	if !strings.HasPrefix(got, "refused: modify qp1 rtr\n  why: it is wrong") || !strings.Contains(got, "Lesson 1 is done") || !strings.Contains(got, "Lesson 2: States") {
		t.Errorf("the refused step:\n%s", got)
	}
	if !r.shells[0].closed {
		t.Error("lesson 1's shell was not closed at its end")
	}
	p, err := LoadProgress(path)
	if err != nil || !cmp.Equal(p, Progress{Lesson: 2, Step: 0, Done: []int{1}}) {
		t.Errorf("saved progress %+v %v", p, err)
	}
	if got := r.exec(":lessons"); !strings.Contains(got, "✓  1. Objects") || !strings.Contains(got, "▶  2. States") {
		t.Errorf(":lessons:\n%s", got)
	}
	// :next runs the step's solution for the learner.
	if got := r.exec(":next"); !strings.Contains(got, "ran:\n  mk qp qp1") || !strings.Contains(got, "Step 2 of 2: Move") {
		t.Errorf(":next:\n%s", got)
	}
	if got := r.exec("set qp1 RTS"); !strings.Contains(got, "the course is complete") {
		t.Errorf("the last step:\n%s", got)
	}
	if got := r.exec("mk pd pd1"); !strings.Contains(got, "ERROR the course is over") {
		t.Errorf("after the course: %s", got)
	}
}

func TestTutorResumesMidLesson(t *testing.T) {
	path := filepath.Join(t.TempDir(), "learn.json")
	r, _ := newRig(t, path, 0)
	r.exec("mk ctx ctx1")
	r.exec("mk qp qp1 ctx1")
	r.tutor.Close()
	if !r.shells[0].closed {
		t.Error("Close did not close the lesson's shell")
	}
	if got := r.exec(":lesson 1"); got != "ERROR the course is closed\n  fix: start it again: verbscope learn" {
		t.Errorf("after Close: %q", got)
	}
	r2, text := newRig(t, path, 0)
	if !strings.Contains(text, "resumed: steps 1 to 2 were replayed") || !strings.Contains(text, "Step 3 of 3: Refused") {
		t.Errorf("resumed opening:\n%s", text)
	}
	if d := cmp.Diff([]string{"mk ctx ctx1", "mk qp qp1 ctx1"}, r2.shells[0].ran); d != "" {
		t.Errorf("replayed (-want +got):\n%s", d)
	}
	// :prev rebuilds a fresh shell up to the step before.
	if got := r2.exec(":prev"); !strings.Contains(got, "Step 2 of 3") || !r2.shells[0].closed || len(r2.shells[1].ran) != 1 {
		t.Errorf(":prev:\n%s\n(shells %d)", got, len(r2.shells))
	}
	// A lesson number given starts there, whatever was saved.
	_, text = newRig(t, path, 2)
	if !strings.HasPrefix(text, "Lesson 2: States") {
		t.Errorf("start at 2:\n%s", text)
	}
	// One command that does two steps passes both.
	r3, _ := newRig(t, path, 2)
	if got := r3.exec("mk qp qp1 - RTS"); !strings.Contains(got, "✓ Make") || !strings.Contains(got, "✓ Move") || !strings.Contains(got, "the course is complete") {
		t.Errorf("two steps at once:\n%s", got)
	}
	if _, _, err := NewTutor(context.Background(), TutorOptions{Lessons: fakeCourse(t), Start: 9}); err == nil || !strings.Contains(err.Error(), "no lesson 9 (the lessons are 1 2)") {
		t.Errorf("start at 9: %v", err)
	}
}

func TestRunCheck(t *testing.T) {
	lessons := fakeCourse(t)
	var shells []*fakeShell
	o := CheckOptions{NewEngine: func() front.Engine { f := newFake(); shells = append(shells, f); return f }, Out: &bytes.Buffer{}}
	if err := RunCheck(context.Background(), lessons, o); err != nil {
		t.Fatalf("the fake course: %v\n%s", err, o.Out)
	}
	for i, f := range shells {
		if !f.closed {
			t.Errorf("lesson %d's shell was left open", i+1)
		}
	}
	// Break lesson 1's second step: it must be named, and lesson 2 still run.
	lessons[0].Steps[1].Solution[0].Text = "mk qp qp7 ctx1"
	lessons[1].Requires = []Requirement{{"command", "no-such-program-for-learn"}}
	out := &bytes.Buffer{}
	o.Out = out
	err := RunCheck(context.Background(), lessons, o)
	var ce *CheckError
	if !errors.As(err, &ce) || len(ce.Failures) != 1 || ce.Failures[0].Lesson != 1 || ce.Failures[0].Step != 2 {
		t.Fatalf("broken step: %v\n%s", err, out)
	}
	for _, want := range []string{
		"step 1/3 A context: ok",
		"step 2/3 A QP: FAILED\n    expect qp1 state=RESET (line 23): there is no qp1 (yet)",
		"lesson 2: States\n  skipped: it needs no-such-program-for-learn, which is not on $PATH",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(err.Error(), `lesson 1 step 2 "A QP"`) {
		t.Errorf("error: %v", err)
	}
	// A setup that fails fails the lesson before its steps.
	lessons[0].Setup = []Line{{Text: "bogus setup"}}
	out.Reset()
	if err := RunCheck(context.Background(), lessons[:1], o); err == nil || !strings.Contains(out.String(), "setup: FAILED\n    \"bogus setup\" failed") {
		t.Errorf("a failed setup: %v\n%s", err, out)
	}
	lessons[0].Setup = []Line{{Text: "mk pd pd9"}}
	// A refused line that runs is a failure too.
	lessons[0].Steps[1].Solution[0].Text = "mk qp qp1 ctx1"
	lessons[0].Steps[2].Solution[0].Text = "mk pd pd1"
	if err := RunCheck(context.Background(), lessons[:1], o); err == nil || !strings.Contains(err.Error(), "expects the shell to refuse it") {
		t.Errorf("a refused line that ran: %v", err)
	}
}
