package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/learn"
)

func TestLearnArgs(t *testing.T) {
	for _, tc := range []struct {
		check bool
		args  []string
		start int
		dir   string
		err   string
	}{
		{args: nil},
		{args: []string{"3"}, start: 3},
		{check: true, args: []string{"./pack"}, dir: "./pack"},
		{check: true, args: []string{"2"}, err: "takes a pack's directory, not a lesson number"},
		{args: []string{"two"}, err: `"two" is not a lesson number`},
		{args: []string{"0"}, err: `"0" is not a lesson number`},
		{args: []string{"1", "2"}, err: `unexpected argument "2"`},
	} {
		lo := learnOptions{check: tc.check}
		err := lo.args(tc.args)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
		case tc.err == "" && (err != nil || lo.start != tc.start || lo.dir != tc.dir):
			t.Errorf("%v: start %d dir %q err %v, want %d %q", tc.args, lo.start, lo.dir, err, tc.start, tc.dir)
		}
	}
}

// TestLearnProgramsAllowed: a pack whose lesson runs a program is
// refused, listing the program, unless --allow-programs or a yes at a
// terminal allows it; as root only the flag does.
func TestLearnProgramsAllowed(t *testing.T) {
	pack := []learn.Lesson{{Number: 3, File: "03-peer.md", Background: []string{"ibv_rc_pingpong -p 18530 \x1b[2J"}}}
	for _, tc := range []struct {
		name        string
		flag        bool
		ask, root   bool
		answer      string
		lessons     []learn.Lesson
		allowed     bool
		errMentions string
	}{
		{name: "no programs", lessons: []learn.Lesson{{Number: 1, File: "01-a.md"}}, allowed: true},
		{name: "built-in programs", lessons: []learn.Lesson{{Number: 9, Background: []string{"ibv_rc_pingpong"}, Builtin: true}}, allowed: true},
		{name: "flag", flag: true, lessons: pack, allowed: true},
		{name: "flag as root", flag: true, root: true, lessons: pack, allowed: true},
		{name: "no terminal", lessons: pack, errMentions: "no terminal to ask at"},
		{name: "yes at the terminal", ask: true, answer: "y\nmore", lessons: pack, allowed: true},
		{name: "no at the terminal", ask: true, answer: "\n", lessons: pack, errMentions: "not allowed at the prompt"},
		{name: "root at a terminal", ask: true, root: true, answer: "y\n", lessons: pack, errMentions: "as root only --allow-programs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo := learnOptions{dir: "./pack", allowProgs: tc.flag}
			var out bytes.Buffer
			in := strings.NewReader(tc.answer)
			err := lo.allowPrograms(tc.lessons, programsAsker{ask: tc.ask, root: tc.root, in: in, out: &out})
			if tc.allowed {
				if err != nil || !lo.allowProgs && len(learn.PackPrograms(tc.lessons)) > 0 {
					t.Fatalf("allowPrograms: %v (allowed %v), want allowed", err, lo.allowProgs)
				}
				if tc.answer != "" && in.Len() != len("more") {
					t.Errorf("the answer took %d bytes past its line", len("more")-in.Len())
				}
				return
			}
			if !errors.Is(err, learn.ErrProgramsNotAllowed) || !strings.Contains(err.Error(), tc.errMentions) ||
				!strings.Contains(err.Error(), `lesson 3 (03-peer.md): ibv_rc_pingpong -p 18530 \x1b[2J`) {
				t.Errorf("allowPrograms: %v\nwant a refusal mentioning %q and listing the program, escaped", err, tc.errMentions)
			}
			if lo.allowProgs {
				t.Error("refused, yet allowProgs is set")
			}
			if strings.Contains(out.String()+errString(err), "\x1b") {
				t.Error("a program's line reached the terminal raw")
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
