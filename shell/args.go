package shell

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// args is one parsed command: positional words, key=value attributes (in
// the order given) and --flags. Getters turn them into typed values with
// errors that say what was expected; unused() catches attributes the
// command does not know, with a guess at what was meant.
type args struct {
	cmd   *command
	pos   []string
	keys  []string
	kv    map[string]string
	flags map[string]bool
	used  map[string]bool
}

// parseArgs sorts a command's words. Quoted words are always positional,
// so `write mr1 "a=b"` writes the text a=b.
func parseArgs(cmd *command, toks []token) (*args, error) {
	a := &args{cmd: cmd, kv: map[string]string{}, flags: map[string]bool{}, used: map[string]bool{}}
	for _, t := range toks {
		w := t.text
		switch {
		case t.quoted:
			a.pos = append(a.pos, w)
		case strings.HasPrefix(w, "--") && len(w) > 2:
			name, val, hasVal := strings.Cut(w[2:], "=")
			name = normKey(name)
			if hasVal {
				if err := a.set(name, val); err != nil {
					return nil, err
				}
				continue
			}
			if !cmd.hasFlag(name) {
				return nil, usageErr(cmd, "%s has no flag --%s%s", cmd.name, name, suggest(name, cmd.flagNames()))
			}
			a.flags[name] = true
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "="):
			k, v, _ := strings.Cut(w, "=")
			if err := a.set(normKey(k), v); err != nil {
				return nil, err
			}
		default:
			a.pos = append(a.pos, w)
		}
	}
	return a, nil
}

func (a *args) set(k, v string) error {
	if _, dup := a.kv[k]; dup {
		return usageErr(a.cmd, "%s= is given twice", k)
	}
	a.keys = append(a.keys, k)
	a.kv[k] = v
	return nil
}

// normKey lets people write dest-qpn, DEST_QPN or dest_qpn.
func normKey(k string) string {
	return strings.ReplaceAll(strings.ToLower(k), "-", "_")
}

// str returns an attribute's value and whether it was given.
func (a *args) str(key string) (string, bool) {
	v, ok := a.kv[key]
	if ok {
		a.used[key] = true
	}
	return v, ok
}

// uint reads a number attribute (decimal or 0x hex) no larger than max.
func (a *args) uint(key string, def, max uint64) (uint64, error) {
	v, ok := a.str(key)
	if !ok {
		return def, nil
	}
	n, err := parseUint(v)
	if err != nil {
		return 0, &Error{What: fmt.Sprintf("%s=%s is not a number", key, v), Fix: "write it in decimal or as 0x…"}
	}
	if n > max {
		return 0, &Error{What: fmt.Sprintf("%s=%s is too large", key, v), Fix: fmt.Sprintf("at most %d", max)}
	}
	return n, nil
}

func parseUint(s string) (uint64, error) {
	s = strings.ReplaceAll(s, "_", "")
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return strconv.ParseUint(s[2:], 16, 64)
	}
	return strconv.ParseUint(s, 10, 64)
}

// given is the set of attribute names on the line.
func (a *args) given() map[string]bool {
	g := make(map[string]bool, len(a.keys))
	for _, k := range a.keys {
		g[k] = true
	}
	return g
}

// flag reports a --flag.
func (a *args) flag(name string) bool { return a.flags[name] }

// posCount checks the number of positional words.
func (a *args) posCount(min, max int) error {
	if len(a.pos) < min {
		return usageErr(a.cmd, "%s needs %d argument(s), got %d", a.cmd.name, min, len(a.pos))
	}
	if max >= 0 && len(a.pos) > max {
		return usageErr(a.cmd, "%s takes at most %d argument(s); %q is one too many", a.cmd.name, max, a.pos[max])
	}
	return nil
}

// unused fails on attributes the command never read.
func (a *args) unused(known []string) error {
	for _, k := range a.keys {
		if !a.used[k] {
			return usageErr(a.cmd, "%s does not take %s=%s", a.cmd.name, k, suggest(k, known))
		}
	}
	return nil
}

// suggest returns "; did you mean X?" for the closest known word, if any
// is close.
func suggest(w string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(w, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		if len(known) == 0 {
			return ""
		}
		sorted := append([]string(nil), known...)
		sort.Strings(sorted)
		return "; it knows " + strings.Join(sorted, ", ")
	}
	return "; did you mean " + best + "?"
}

// editDistance is the Levenshtein distance, for typo suggestions.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
