package shell

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// fakePDs fills a session with n PDs that no library object backs (a PD's
// snapshot reads nothing from the library), and counts the entries each
// later snapshot describes.
func fakePDs(t *testing.T, n int) (s *Shell, described *[]string) {
	t.Helper()
	s = New(Options{})
	t.Cleanup(func() { s.Close() })
	var names []string
	s.objectOf = func(e *entry) front.Object {
		names = append(names, e.name)
		return s.object(e)
	}
	s.mu.Lock()
	for range n {
		s.add(&entry{kind: rdma.KindPD}, "")
	}
	s.publish("")
	s.mu.Unlock()
	if len(names) != n || s.State().Len() != n {
		t.Fatalf("the first snapshot described %d of %d entries and holds %d", len(names), n, s.State().Len())
	}
	names = nil
	return s, &names
}

// without returns the objects of st in creation order, less the named.
func without(st front.State, names ...string) []front.Object {
	var out []front.Object
	for o := range st.Objects() {
		if !slices.Contains(names, o.Name) {
			out = append(out, o)
		}
	}
	return out
}

// TestPublishDescribesWhatTheCommandReached: after a command, the next
// snapshot describes again only the objects the command reached; every
// other object is the last snapshot's, the same values, not described
// (for a QP: not queried) again. A command that reaches nothing, or is
// refused, describes nothing.
func TestPublishDescribesWhatTheCommandReached(t *testing.T) {
	s, described := fakePDs(t, 1000)
	before := s.State()
	for _, tc := range []struct {
		line string
		want []string // the entries described again
	}{
		{"help", nil},
		{"rename nosuch x", nil},
		{"rename pd500 mine", []string{"mine"}},
		{"show pd7", []string{"pd7"}},
	} {
		*described = nil
		seq := s.State().Seq
		s.Exec(context.Background(), tc.line)
		if diff := cmp.Diff(tc.want, *described); diff != "" {
			t.Errorf("%q described (-want +got):\n%s", tc.line, diff)
		}
		if s.State().Seq <= seq {
			t.Errorf("%q published no snapshot", tc.line)
		}
	}
	after := s.State()
	if diff := cmp.Diff(without(before, "pd500"), without(after, "mine")); diff != "" {
		t.Errorf("the objects no command changed differ (-before +after):\n%s", diff)
	}
	mine, ok := after.Object("mine")
	if _, old := after.Object("pd500"); !ok || old || mine.ID != 500 || after.Len() != 1000 {
		t.Errorf("after the rename: mine %+v (found %v), pd500 found %v, %d objects", mine, ok, old, after.Len())
	}
	if _, ok := before.Object("pd500"); !ok {
		t.Error("the snapshot taken before the rename changed")
	}
}

// TestRenameRedescribesUsers: an object's users show its name (a QP's
// PD, its CQs), so renaming it describes them again, and nothing else.
func TestRenameRedescribesUsers(t *testing.T) {
	s, described := fakePDs(t, 10)
	s.mu.Lock()
	parent := s.objs.byName["pd3"]
	for _, name := range []string{"kid1", "kid2"} {
		s.add(&entry{kind: rdma.KindPD, parent: parent}, name)
	}
	s.publish("")
	s.mu.Unlock()
	*described = nil
	if _, err := s.Exec(context.Background(), "rename pd3 base"); err != nil {
		t.Fatal(err)
	}
	slices.Sort(*described)
	if diff := cmp.Diff([]string{"base", "kid1", "kid2"}, *described); diff != "" {
		t.Errorf("described (-want +got):\n%s", diff)
	}
	for _, name := range []string{"kid1", "kid2"} {
		if o, _ := s.State().Object(name); o.Parent != "base" {
			t.Errorf("%s's parent is %q, want base", name, o.Parent)
		}
	}
}
