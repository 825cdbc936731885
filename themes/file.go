package themes

import (
	"fmt"
	"image/color"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
)

// themeFile is a parsed user theme.
//
// The format, one setting a line ('#' starts a comment):
//
//	base = dark                 # the built-in theme it starts from (default auto)
//	error = bold fg=#ff5f5f     # a slot: attributes and colours
//	selected = reverse
//	ours = fg=177 bg=236        # xterm-256 indexes work too
//
// A slot's value is any of bold, faint, underline, reverse, fg=COLOUR and
// bg=COLOUR, where COLOUR is #rgb, #rrggbb or 0-255; the slot replaces the
// base's slot entirely. The slots: title, header, border, selected, key,
// ok, warn, error, dim, new, changed, vanished, ours, accent.
type themeFile struct {
	Base  string
	Slots map[Slot]spec
}

// Compiled at first use, not in every verbscope process at start.
var hexRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`) })

// parseFile parses a theme file; the error names the line.
func parseFile(data string) (*themeFile, error) {
	f := &themeFile{Slots: map[Slot]spec{}}
	for i, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(stripComment(line))
		if line == "" {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not `slot = value`", i+1, line)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if key == "base" {
			f.Base = val
			continue
		}
		slot := Slot(key)
		if !validSlot(slot) {
			return nil, fmt.Errorf("line %d: unknown slot %q (slots: %s)", i+1, key, slotList())
		}
		sp, err := parseSpec(val)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", i+1, key, err)
		}
		f.Slots[slot] = sp
	}
	return f, nil
}

// stripComment drops a '#' comment that is not the start of a colour
// (fg=#fff).
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		if line[i] != '#' {
			continue
		}
		if i > 0 && line[i-1] == '=' {
			continue
		}
		return line[:i]
	}
	return line
}

func parseSpec(val string) (spec, error) {
	sp := spec{set: true}
	for _, w := range strings.Fields(val) {
		switch {
		case w == "bold":
			sp.bold = true
		case w == "faint":
			sp.faint = true
		case w == "underline":
			sp.underline = true
		case w == "reverse":
			sp.reverse = true
		case strings.HasPrefix(w, "fg="), strings.HasPrefix(w, "bg="):
			col, err := parseColour(w[3:])
			if err != nil {
				return spec{}, err
			}
			if w[0] == 'f' {
				sp.fg = col
			} else {
				sp.bg = col
			}
		default:
			return spec{}, fmt.Errorf("%q is not bold, faint, underline, reverse, fg=COLOUR or bg=COLOUR", w)
		}
	}
	return sp, nil
}

func parseColour(s string) (color.Color, error) {
	if hexRE().MatchString(s) {
		return lipgloss.Color(s), nil
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 0 && n <= 255 {
		return lipgloss.Color(s), nil
	}
	return nil, fmt.Errorf("colour %q is not #rgb, #rrggbb or 0-255", s)
}

func validSlot(s Slot) bool {
	for _, x := range slots {
		if x == s {
			return true
		}
	}
	return false
}

func slotList() string {
	names := make([]string, len(slots))
	for i, s := range slots {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
