package learn

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCheck(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Check
		err  string
	}{
		{line: "expect qp1 state=RTR", want: Check{Kind: checkObject, Subject: "qp1", Attrs: []Attr{{"state", "=", "RTR"}}}},
		{line: "  expect cq1 cqe>=16 parent=ctx1", want: Check{Kind: checkObject, Subject: "cq1", Attrs: []Attr{{"cqe", ">=", "16"}, {"parent", "=", "ctx1"}}}},
		{line: "expect cq1 completion opcode=RECV status=success", want: Check{Kind: checkCompletion, Subject: "cq1", Attrs: []Attr{{"opcode", "=", "RECV"}, {"status", "=", "success"}}}},
		{line: `expect cq1 completion data="two words" count=2`, want: Check{Kind: checkCompletion, Subject: "cq1", Attrs: []Attr{{"data", "=", "two words"}, {"count", "=", "2"}}}},
		{line: "expect object pd count=1", want: Check{Kind: checkCount, Subject: "pd", Attrs: []Attr{{"count", "=", "1"}}}},
		{line: "expect pd1 gone", want: Check{Kind: checkGone, Subject: "pd1"}},
		{line: "expect qp1", want: Check{Kind: checkObject, Subject: "qp1"}},
		{line: `expect refusal mentions="is not a transition"`, want: Check{Kind: checkRefusal, Subject: "refusal", Attrs: []Attr{{"mentions", "=", "is not a transition"}}}},
		{line: "expect event cq_err on=cq2", want: Check{Kind: checkEvent, Subject: "CQ_ERR", Attrs: []Attr{{"on", "=", "cq2"}}}},
		{line: "expect event on=cq2", err: "names the event"},
		{line: "expect object qp count=0 owner=ibv_rc_pingpong", want: Check{Kind: checkCount, Subject: "qp", Attrs: []Attr{{"count", "=", "0"}, {"owner", "=", "ibv_rc_pingpong"}}}},
		{line: "expect object qp owner=x count=1", err: "takes count=N, then optionally owner=COMM"},
		{line: "expect object qp count=1 owner=x owner=y", err: "takes count=N, then optionally owner=COMM"},
		{line: "expect doctor memlock verdict=pass|warn", want: Check{Kind: checkDoctor, Subject: "memlock", Attrs: []Attr{{"verdict", "=", "pass|warn"}}}},
		{line: "expect doctor irqs", want: Check{Kind: checkDoctor, Subject: "irqs"}},
		{line: "expect qp1 verdict=rnr evidence=rcvd_rnr_err", want: Check{Kind: checkObject, Subject: "qp1", Attrs: []Attr{{"verdict", "=", "rnr"}, {"evidence", "=", "rcvd_rnr_err"}}}},
		{line: "expect doctor verdict=pass", err: "names the check"},
		{line: "expect doctor gids state=up", err: `no key "state" here`},
		{line: "check qp1 state=RTR", err: "a check is `expect WHAT"},
		{line: "expect", err: "a check is `expect WHAT"},
		{line: "expect qp1 colour=red", err: `no key "colour" here`},
		{line: "expect qp1 state>=RTR", err: "state is not a number"},
		{line: "expect cq1 cqe=many", err: "cqe wants a number"},
		{line: "expect cq1 cqe>16", err: "the comparisons are = and >="},
		{line: "expect qp1 =RTR", err: "is not KEY=VALUE"},
		{line: "expect object count=1", err: "names the kind"},
		{line: "expect object pd", err: "takes count=N"},
		{line: "expect pd1 gone now", err: "takes nothing after gone"},
		{line: `expect cq1 completion data="open`, err: "a quote is not closed"},
		{line: "expect refusal state=ERR", err: `no key "state" here`},
	} {
		got, err := parseCheck(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseCheck(%q) = %v, want an error with %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseCheck(%q): %v", tc.line, err)
			continue
		}
		tc.want.Text = strings.TrimSpace(tc.line)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("ParseCheck(%q) (-want +got):\n%s", tc.line, d)
		}
	}
}

const tiny = "# Tiny\n\nThe intro.\n\n```requires\ncommand sh\n```\n\n```setup\nopen; pd\n```\n## First\n\nDo it.\n\n```text\n## not a step\n```\n\n```solution\nopen\n! modify qp1 rtr\n```\n\n```check\nexpect object ctx count=1\n\nexpect refusal\n```\n\n```hint\nType open.\n```\n\n```done\nDone.\n```\n"

func TestParse(t *testing.T) {
	got, err := parse("lessons/07-tiny.md", []byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	want := Lesson{Number: 7, File: "lessons/07-tiny.md", Title: "Tiny", Intro: "The intro.",
		Requires: []Requirement{{"command", "sh"}}, Setup: []Line{{Text: "open; pd"}},
		Steps: []Step{{Title: "First", Text: "Do it.\n\n```text\n## not a step\n```", Hint: "Type open.", Done: "Done.", Line: 12,
			Solution: []Line{{Text: "open"}, {Text: "modify qp1 rtr", Refused: true}},
			Checks: []Check{{Text: "expect object ctx count=1", Line: 26, Kind: checkCount, Subject: "ctx", Attrs: []Attr{{"count", "=", "1"}}},
				{Text: "expect refusal", Line: 28, Kind: checkRefusal, Subject: "refusal"}}}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
}

func TestParseErrors(t *testing.T) {
	step := "## S\n```solution\nopen\n```\n```check\nexpect object ctx count=1\n```\n"
	for _, tc := range []struct{ name, src, err string }{
		{"x.md", "# T\n" + step, "starts with its number"},
		{"01.md", "", "empty"},
		{"01.md", "text first\n# T\n", ":1: a lesson starts with its title"},
		{"01.md", "# T\n# U\n", ":2: a lesson has one title"},
		{"01.md", "# T\nintro\n", "no steps"},
		{"01.md", "# T\n## S\ntext\n", ":2: step \"S\" needs a ```solution and a ```check"},
		{"01.md", "# T\n## S\n```check\nexpect qp1 hue=1\n```\n", `:4: "expect qp1 hue=1": no key "hue"`},
		{"01.md", "# T\n## S\n```solution\nopen\n", ":3: the ```solution block is not closed"},
		{"01.md", "# T\n```hint\nh\n```\n" + step, ":2: ```hint belongs to a step"},
		{"01.md", "# T\n" + step + "```requires\ncommand x\n```\n", "belongs to the introduction"},
		{"01.md", "# T\n```requires\nkernel 6.9\n```\n" + step, ":3: a requirement is `command NAME`"},
	} {
		_, err := parse(tc.name, []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Parse(%q, %q) = %v, want an error with %q", tc.name, tc.src, err, tc.err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(tiny))
	f.Add([]byte("# T\n## S\n```solution\n! x\n```\n```check\nexpect a b=\"c\\\"d\"\n```\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		l, err := parse("01-fuzz.md", src)
		if err != nil {
			return
		}
		// What parses is usable: every step can be judged and run.
		for _, s := range l.Steps {
			if len(s.Checks) == 0 || len(s.Solution) == 0 {
				t.Fatalf("step %q parsed without checks or solution", s.Title)
			}
			for _, c := range s.Checks {
				again, err := parseCheck(c.Text)
				if err != nil || again.Kind != c.Kind || again.Subject != c.Subject {
					t.Fatalf("check %q does not parse the same again: %v", c.Text, err)
				}
			}
		}
	})
}

func TestCourse(t *testing.T) {
	lessons, err := Course()
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, l := range lessons {
		got = append(got, l.Number)
		if l.Title == "" || l.Intro == "" {
			t.Errorf("lesson %d has no title or introduction", l.Number)
		}
		for _, s := range l.Steps {
			if s.Text == "" || s.Done == "" {
				t.Errorf("lesson %d step %q lacks its text or what it did", l.Number, s.Title)
			}
		}
	}
	if d := cmp.Diff([]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, got); d != "" {
		t.Errorf("the course's lessons (-want +got):\n%s", d)
	}
}
