package shell

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/shell/front"
)

// These run without a device: on the build host libibverbs says ENOSYS,
// which is itself a case the shell must explain.

func TestExecRefusesWithReasons(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	for _, tc := range []struct {
		line string
		want []string // substrings of the error
	}{
		{"bogus", []string{`unknown command "bogus"`, "help"}},
		{"moddify qp1 init", []string{"did you mean modify?"}},
		{"modify", []string{"modify needs 2 argument(s)", "usage: modify QP STATE"}},
		{"modify qp1 init", []string{"there is no qp1", "create one first: qp type=rc cq=cq1"}},
		{"pd", []string{"there is no device context yet", "open"}},
		{"qp type=rc", []string{"there is no protection domain yet"}},
		{`write mr1 "unterminated`, []string{"unterminated \" quote"}},
		{"destroy --bogus x", []string{"destroy has no flag --bogus"}},
		{"open as=1bad", nil},
		{"cq size=abc", []string{"there is no device context"}},
		{"help nope", []string{`no command "nope"`}},
		{"ls extra", []string{"ls takes at most 0 argument(s)"}},
		{"rename a", []string{"rename needs 2 argument(s)"}},
	} {
		_, err := s.Exec(context.Background(), tc.line)
		if err == nil {
			t.Errorf("%q: no error", tc.line)
			continue
		}
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%q: %T is not a *shell.Error: %v", tc.line, err, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: error lacks %q:\n%v", tc.line, w, err)
			}
		}
	}
}

func TestHelp(t *testing.T) {
	s := New(Options{})
	res, err := s.Exec(context.Background(), "help")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Objects:", "The QP state machine:", "modify", "help COMMAND"} {
		if !strings.Contains(res.Text, w) {
			t.Errorf("help lacks %q", w)
		}
	}
	for _, c := range commandList() {
		res, err := s.Exec(context.Background(), "help "+c.name)
		if err != nil {
			t.Errorf("help %s: %v", c.name, err)
			continue
		}
		if !strings.HasPrefix(res.Text, "usage: "+c.name) && !strings.HasPrefix(res.Text, "usage: "+c.usage) {
			t.Errorf("help %s starts %q", c.name, strings.SplitN(res.Text, "\n", 2)[0])
		}
		if c.summary == "" {
			t.Errorf("%s has no summary", c.name)
		}
	}
}

func TestCompleteWithoutObjects(t *testing.T) {
	s := New(Options{})
	texts := func(c Completion) []string {
		var out []string
		for _, it := range c.Items {
			out = append(out, it.Text)
		}
		return out
	}
	c := s.Complete("mod", 3)
	if got := texts(c); len(got) != 1 || got[0] != "modify" || c.Start != 0 || c.End != 3 {
		t.Errorf("Complete(mod) = %v [%d,%d)", got, c.Start, c.End)
	}
	c = s.Complete("open; mo", 8)
	if got := texts(c); len(got) != 1 || got[0] != "modify" || c.Start != 6 {
		t.Errorf("Complete after ';' = %v start %d", got, c.Start)
	}
	c = s.Complete("destroy --c", 11)
	if got := texts(c); len(got) != 1 || got[0] != "--cascade" {
		t.Errorf("flags: %v", got)
	}
	c = s.Complete("modify qp1 init path_mtu=", 25)
	if got := texts(c); len(got) == 0 || got[0] != "path_mtu=1024" {
		t.Errorf("path_mtu values: %v", got)
	}
	c = s.Complete("modify qp1 ", 11)
	if got := texts(c); !contains(got, "rts") || !contains(got, "init") || contains(got, "sqe") {
		t.Errorf("states after `modify qp1 `: %v", got)
	}
	c = s.Complete("modify qp1 init dest", 20)
	if got := texts(c); len(got) != 1 || got[0] != "dest_qpn=" {
		t.Errorf("attribute names: %v", got)
	}
	if c := s.Complete("nosuchcommand ", 14); len(c.Items) != 0 {
		t.Errorf("unknown command completes %v", texts(c))
	}
	if c := s.Complete("x", 99); c.End != 1 {
		t.Errorf("cursor past the end: %+v", c)
	}
}

// FuzzExec feeds arbitrary lines to a session: every one must give a
// result or a structured *Error, never a panic (Exec's recover would turn
// a panic into an "internal error", which fails here too).
func FuzzExec(f *testing.F) {
	for _, s := range []string{"open", "pd; cq size=16", "modify qp1 rtr dest_qpn=qp2 path_mtu=9", `write mr1 "x"`,
		"qp type=zz cq=", "destroy a --cascade", "help modify", "rename x y", "cq size=99999999999999999999", "--", "=", "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		s := New(Options{})
		defer s.Close()
		for _, l := range front.Lines(line) {
			_, err := s.Exec(context.Background(), l.Text)
			if err != nil && strings.Contains(err.Error(), "internal error") {
				t.Fatalf("%q: %v", l.Text, err)
			}
			var se *Error
			if err != nil && !errors.As(err, &se) {
				t.Fatalf("%q: %T %v is not a structured *Error", l.Text, err, err)
			}
		}
		s.Complete(line, len(line))
		s.Complete(line, len(line)/2)
	})
}

// Every command's help has at least one example a learner can copy.
func TestEveryCommandHasAnExample(t *testing.T) {
	for _, c := range commandList() {
		if c.name == "help" {
			continue
		}
		if !strings.Contains(c.help, "example") {
			t.Errorf("help %s has no example", c.name)
		}
	}
}
