package learn

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/shell/front"
)

// programPack is a teacher's pack of one lesson whose background block
// runs `touch MARKER`: whether MARKER exists says whether it ran.
func programPack(t *testing.T) ([]Lesson, string) {
	t.Helper()
	marker := filepath.Join(t.TempDir(), "ran")
	src := "# Peer\nA program runs beside the shell.\n```background\ntouch " + marker + "\n```\n" +
		"## A PD\nMake one.\n```solution\nmk pd pd1\n```\n```check\nexpect pd1\n```\n"
	lessons, err := load(fstest.MapFS{"03-peer.md": {Data: []byte(src)}})
	if err != nil {
		t.Fatal(err)
	}
	return lessons, marker
}

func ran(t *testing.T, marker string) bool {
	t.Helper()
	_, err := os.Stat(marker)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// TestPackProgramsRefusedUnlessAllowed: a pack's background block runs
// nothing without AllowPrograms, whether its lessons are checked
// (learn --check DIR) or taught (learn --dir DIR).
func TestPackProgramsRefusedUnlessAllowed(t *testing.T) {
	lessons, marker := programPack(t)
	newEngine := func() front.Engine { return newFake() }
	var out bytes.Buffer
	err := RunCheck(context.Background(), lessons, CheckOptions{NewEngine: newEngine, Out: &out})
	var ce *CheckError
	if !errors.As(err, &ce) || !strings.Contains(out.String(), ErrProgramsNotAllowed.Error()) {
		t.Errorf("RunCheck without AllowPrograms: %v, said:\n%s\nwant the lesson failed as not allowed", err, out.String())
	}
	tu, _, err := NewTutor(context.Background(), TutorOptions{Lessons: lessons, NewEngine: newEngine, Recheck: -1})
	if !errors.Is(err, ErrProgramsNotAllowed) {
		t.Errorf("NewTutor without AllowPrograms: %v, want ErrProgramsNotAllowed", err)
	}
	if tu != nil {
		tu.Close()
	}
	if ran(t, marker) {
		t.Fatal("a pack's background program ran without being allowed")
	}
}

// TestPackProgramsRunWhenAllowed: allowed, the same block runs; a
// built-in lesson's runs without asking.
func TestPackProgramsRunWhenAllowed(t *testing.T) {
	for _, tc := range []struct {
		name           string
		builtin, allow bool
	}{{"pack, allowed", false, true}, {"built-in", true, false}} {
		t.Run(tc.name, func(t *testing.T) {
			lessons, marker := programPack(t)
			l := lessons[0]
			l.Builtin = tc.builtin
			s := newSession(newFake(), nil, nil)
			defer s.Close()
			if err := s.Prepare(context.Background(), l, tc.allow); err != nil {
				t.Fatal(err)
			}
			s.mu.Lock()
			progs := s.programs
			s.mu.Unlock()
			if len(progs) != 1 {
				t.Fatalf("%d programs started, want 1", len(progs))
			}
			<-progs[0].done
			if !ran(t, marker) {
				t.Error("the allowed background program did not run")
			}
		})
	}
}

// TestPackProgramsList: what the learner is shown before allowing a
// pack; a built-in lesson and a skipped one run nothing of the pack's.
func TestPackProgramsList(t *testing.T) {
	lessons := []Lesson{
		{Number: 1, File: "01-a.md", Background: []string{"ibv_rc_pingpong -p 1"}, Builtin: true},
		{Number: 2, File: "02-b.md", Background: []string{"ibv_rc_pingpong -p 2", "sleep 9"}},
		{Number: 3, File: "03-c.md", Background: []string{"x"}, Skip: "no IPv4 address"},
	}
	want := []PackProgram{{2, "02-b.md", "ibv_rc_pingpong -p 2"}, {2, "02-b.md", "sleep 9"}}
	if diff := cmp.Diff(want, PackPrograms(lessons)); diff != "" {
		t.Errorf("PackPrograms (-want +got):\n%s", diff)
	}
}

// TestCourseIsBuiltin: the shipped course's programs run as before.
func TestCourseIsBuiltin(t *testing.T) {
	lessons, err := Course()
	if err != nil {
		t.Fatal(err)
	}
	if p := PackPrograms(lessons); len(p) != 0 {
		t.Errorf("the built-in course counts as a pack: %v", p)
	}
}
