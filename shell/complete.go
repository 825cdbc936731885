package shell

import (
	"slices"
	"sort"
	"strings"
)

// argKind says what a positional word is, for completion.
type argKind struct {
	name  string
	items func(s *Shell, pos []string) []Suggestion
}

// objArg completes names of objects of the given kinds.
func objArg(kinds ...kind) argKind {
	var ws []string
	for _, k := range kinds {
		ws = append(ws, string(k))
	}
	return argKind{name: strings.Join(ws, "|"), items: func(s *Shell, _ []string) []Suggestion {
		var of []*entry
		for _, k := range kinds {
			of = append(of, s.objs.sorted(k)...)
		}
		slices.SortFunc(of, byID)
		out := make([]Suggestion, 0, len(of))
		for _, e := range of {
			out = append(out, Suggestion{Text: e.name, Description: s.summary(e)})
		}
		return out
	}}
}

// Complete offers what could come at the cursor: commands, object names,
// QP states, attribute names and their values, device names, flags. It
// is safe to call while a command runs and never waits for it: while the
// command waits (listen, dial, poll, wait release the session lock) it
// offers objects as usual; while the command works it leaves them out.
func (s *Shell) Complete(line string, cursor int) Completion {
	if cursor < 0 || cursor > len(line) {
		cursor = len(line)
	}
	before := line[:cursor]
	// Only the command under the cursor matters.
	segStart := strings.LastIndexByte(before, ';') + 1
	seg := before[segStart:]
	toks, _ := tokenize(seg, true)
	// The word being typed: the last token if the cursor touches it.
	var cur token
	if n := len(toks); n > 0 && toks[n-1].end == len(seg) {
		cur = toks[n-1]
		toks = toks[:n-1]
	} else {
		cur = token{start: len(seg), end: len(seg)}
	}
	comp := Completion{Start: segStart + cur.start, End: cursor}
	prefix := strings.ToLower(cur.text)

	if len(toks) == 0 {
		for _, c := range commandList() {
			comp.Items = append(comp.Items, Suggestion{Text: c.name, Description: c.summary})
		}
		comp.Items = filter(comp.Items, prefix)
		return comp
	}
	cmd := lookupCommand(toks[0].text)
	if cmd == nil {
		return comp
	}
	locked := s.mu.TryLock()
	if locked {
		defer s.mu.Unlock()
	}
	var pos []string
	for _, t := range toks[1:] {
		if !t.quoted && (strings.HasPrefix(t.text, "--") || strings.Contains(t.text, "=")) {
			continue
		}
		pos = append(pos, t.text)
	}
	switch {
	case strings.HasPrefix(cur.text, "--"):
		for _, f := range cmd.flags {
			comp.Items = append(comp.Items, Suggestion{Text: "--" + f.name, Description: f.help})
		}
	case strings.Contains(cur.text, "=") && !cur.quoted:
		key, _, _ := strings.Cut(cur.text, "=")
		if cmd.keys != nil && locked {
			for _, k := range cmd.keys(s, pos) {
				if k.name == normKey(key) && k.values != nil {
					for _, v := range k.values(s) {
						comp.Items = append(comp.Items, Suggestion{Text: key + "=" + v.Text, Description: v.Description})
					}
				}
			}
		}
	default:
		if len(pos) < len(cmd.pos) && cmd.pos[len(pos)].items != nil && locked {
			comp.Items = append(comp.Items, cmd.pos[len(pos)].items(s, pos)...)
		}
		// Attributes come after every positional word the command names.
		if len(pos) >= len(cmd.pos) && cmd.keys != nil && locked {
			given := map[string]bool{}
			for _, t := range toks[1:] {
				if k, _, ok := strings.Cut(t.text, "="); ok {
					given[normKey(k)] = true
				}
			}
			for _, k := range cmd.keys(s, pos) {
				if !given[k.name] {
					comp.Items = append(comp.Items, Suggestion{Text: k.name + "=", Description: k.help})
				}
			}
		}
	}
	comp.Items = filter(comp.Items, prefix)
	return comp
}

// filter keeps the suggestions that start with prefix (case-insensitive),
// in their order, without duplicates.
func filter(items []Suggestion, prefix string) []Suggestion {
	seen := map[string]bool{}
	var out []Suggestion
	for _, it := range items {
		if strings.HasPrefix(strings.ToLower(it.Text), prefix) && !seen[it.Text] {
			seen[it.Text] = true
			out = append(out, it)
		}
	}
	return out
}

// enumValues turns a fixed list into suggestions.
func enumValues(pairs ...string) func(*Shell) []Suggestion {
	return func(*Shell) []Suggestion {
		var out []Suggestion
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, Suggestion{Text: pairs[i], Description: pairs[i+1]})
		}
		return out
	}
}

// sortedKeys returns a map's keys in order (for stable help and JSON).
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
