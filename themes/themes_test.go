package themes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
)

func TestParseFile(t *testing.T) {
	tests := []struct {
		name, in string
		base     string
		slots    int
		err      string
	}{
		{"empty", "", "", 0, ""},
		{"comments", "# a theme\n\nbase = dark # the base\n", "dark", 0, ""},
		{"slots", "error = bold fg=#ff5f5f\nours = fg=177 bg=#123 # purple\n", "", 2, ""},
		{"no equals", "error bold", "", 0, "line 1"},
		{"unknown slot", "errr = bold", "", 0, `unknown slot "errr"`},
		{"bad word", "ok = shiny", "", 0, `"shiny" is not`},
		{"bad colour", "ok = fg=#12", "", 0, `colour "#12"`},
		{"colour out of range", "ok = fg=256", "", 0, `colour "256"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseFile(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseFile(%q) = %v, want error containing %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Base != tc.base || len(f.Slots) != tc.slots {
				t.Errorf("ParseFile(%q) = base %q, %d slots; want %q, %d", tc.in, f.Base, len(f.Slots), tc.base, tc.slots)
			}
		})
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add("base = dark\nerror = bold fg=#ff0000 bg=12\n")
	f.Add("ok = fg=#=#\n#\n=")
	f.Fuzz(func(t *testing.T, s string) {
		file, err := parseFile(s)
		if err == nil && file == nil {
			t.Fatal("nil file without an error")
		}
	})
}

func TestBuiltinsHaveEverySlot(t *testing.T) {
	for name, p := range palettes {
		for _, s := range slots {
			if !p[s].set {
				t.Errorf("theme %s leaves slot %s unset", name, s)
			}
		}
	}
	for _, name := range builtin {
		if _, err := Load(name, Options{Dir: t.TempDir()}); err != nil {
			t.Errorf("Load(%q): %v", name, err)
		}
	}
}

func TestAutoFollowsBackground(t *testing.T) {
	for _, dark := range []bool{true, false} {
		th, err := Load("auto", Options{Dark: dark})
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{true: "dark", false: "light"}[dark]
		if th.Name != want {
			t.Errorf("auto with dark=%v = %s, want %s", dark, th.Name, want)
		}
	}
}

func TestNoColorKeepsAttributes(t *testing.T) {
	th, err := Load("dark", Options{NoColor: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range slots {
		st := th.Style(s)
		if st.GetForeground() != nil && !isNoColor(st.GetForeground()) || st.GetBackground() != nil && !isNoColor(st.GetBackground()) {
			t.Errorf("slot %s keeps a colour under NO_COLOR", s)
		}
	}
	if !th.Style(SlotSelected).GetReverse() || !th.Style(SlotError).GetBold() {
		t.Error("NO_COLOR dropped the attributes that carry meaning without colour")
	}
	if !NoColor(func(string) string { return "0" }) || NoColor(func(string) string { return "" }) {
		t.Error("NO_COLOR: any non-empty value must mean no colour")
	}
}

func TestUserTheme(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "class.theme"), []byte("base = light\nerror = reverse fg=#ffffff\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	th, err := Load("class", Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !th.Style(SlotError).GetReverse() || th.Style(SlotError).GetBold() {
		t.Error("the file's error slot did not replace the base's")
	}
	if th.Style(SlotOK).GetForeground() == nil {
		t.Error("slots the file leaves out must come from its base")
	}
	_, err = Load("nosuch", Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "class") || !strings.Contains(err.Error(), "high-contrast") {
		t.Errorf("unknown theme error should list the themes, got %v", err)
	}
	if _, err := Load("../etc/passwd", Options{Dir: dir}); err == nil {
		t.Error("a path is not a theme name")
	}
}

func isNoColor(c any) bool {
	_, ok := c.(lipgloss.NoColor)
	return ok
}
