package themes

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Options say how to resolve a theme name.
type Options struct {
	// Dark is the terminal's background (auto picks dark or light by it).
	Dark bool
	// NoColor drops every colour (NO_COLOR); attributes stay.
	NoColor bool
	// ASCII draws with ASCII only.
	ASCII bool
	// Dir holds user themes (default: $XDG_CONFIG_HOME/verbscope/themes).
	Dir string
}

// NoColor reports whether NO_COLOR asks for no colour: any non-empty
// value does (https://no-color.org), "0" and "false" included.
func NoColor(getenv func(string) string) bool { return getenv("NO_COLOR") != "" }

// userDir is where user themes live: $XDG_CONFIG_HOME/verbscope/themes,
// or ~/.config/verbscope/themes.
func userDir() string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "verbscope", "themes")
}

// Compiled at first use, not in every verbscope process at start.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`) })

// Load resolves a theme by name: a built-in one, or NAME.theme in the
// user folder. The error says which themes exist.
func Load(name string, o Options) (*Theme, error) {
	if name == "" {
		name = "auto"
	}
	if name == "auto" {
		name = "light"
		if o.Dark {
			name = "dark"
		}
	}
	if p, ok := palettes[name]; ok {
		t := build(name, p, o.NoColor)
		t.ASCII = o.ASCII
		return t, nil
	}
	dir := o.Dir
	if dir == "" {
		dir = userDir()
	}
	if !nameRE().MatchString(name) {
		return nil, fmt.Errorf("themes: %q is not a theme name: %s", name, available(dir))
	}
	path := filepath.Join(dir, name+".theme")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("themes: no theme %q (no built-in one, no %s): %s", name, path, available(dir))
	}
	if err != nil {
		return nil, fmt.Errorf("themes: reading %s: %w", path, err)
	}
	f, err := parseFile(string(data))
	if err != nil {
		return nil, fmt.Errorf("themes: %s: %w", path, err)
	}
	base := f.Base
	if base == "" || base == "auto" {
		base = "light"
		if o.Dark {
			base = "dark"
		}
	}
	bp, ok := palettes[base]
	if !ok {
		return nil, fmt.Errorf("themes: %s: base %q is not a built-in theme (%s)", path, f.Base, strings.Join(builtin, ", "))
	}
	merged := make(map[Slot]spec, len(slots))
	for _, s := range slots {
		merged[s] = bp[s]
		if sp, ok := f.Slots[s]; ok {
			merged[s] = sp
		}
	}
	t := build(name, merged, o.NoColor)
	t.ASCII = o.ASCII
	return t, nil
}

// available lists the themes that can be named.
func available(dir string) string {
	names := slices.Clone(builtin)
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if n, ok := strings.CutSuffix(e.Name(), ".theme"); ok && nameRE().MatchString(n) {
				names = append(names, n)
			}
		}
	}
	return "themes are " + strings.Join(names, ", ")
}
