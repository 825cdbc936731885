package themes

import (
	"testing"

	"charm.land/lipgloss/v2"
)

// TestRenderIsLipgloss: Render's recorded escapes give what lipgloss
// gives, for every theme, slot and kind of text, with and without colour.
func TestRenderIsLipgloss(t *testing.T) {
	texts := []string{"x", "QPs 10001", "héllo ✓ │ ◆", " padded ", "a\tb", "two\nlines", "", "\x1b[1mraw\x1b[m"}
	for _, name := range builtin {
		for _, noColor := range []bool{false, true} {
			th, err := Load(name, Options{Dark: true, NoColor: noColor})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range slots {
				if _, ok := th.affixes[s]; !ok && !th.styles[s].GetUnderline() {
					t.Errorf("%s (no colour %v): slot %s has no recorded escapes", name, noColor, s)
				}
				for _, text := range texts {
					if got, want := th.Render(s, text), th.styles[s].Render(text); got != want {
						t.Errorf("%s (no colour %v) %s %q: Render %q, lipgloss %q", name, noColor, s, text, got, want)
					}
				}
			}
		}
	}
}

// TestAffixRefusesLayout: a style that pads or sizes its text has no
// fixed escapes, so Render must not take the fast path for it.
func TestAffixRefusesLayout(t *testing.T) {
	for name, st := range map[string]lipgloss.Style{
		"width":     lipgloss.NewStyle().Width(9),
		"padding":   lipgloss.NewStyle().Bold(true).PaddingLeft(1),
		"underline": lipgloss.NewStyle().Underline(true),
	} {
		if a, ok := affixOf(st); ok {
			t.Errorf("a style with %s recorded escapes %q", name, a)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	th, _ := Load("dark", Options{Dark: true})
	for b.Loop() {
		th.Render(SlotOK, "1:ACTIVE")
	}
}

func BenchmarkRenderLipgloss(b *testing.B) {
	th, _ := Load("dark", Options{Dark: true})
	st := th.Style(SlotOK)
	for b.Loop() {
		st.Render("1:ACTIVE")
	}
}
