package shell

import (
	"context"
	"fmt"
	"strings"
)

func init() {
	register(&command{
		name:    "help",
		aliases: []string{"?"},
		usage:   "help [COMMAND]",
		summary: "list the commands, or explain one with examples",
		pos: []argKind{{name: "command", items: func(*Shell, []string) []Suggestion {
			var out []Suggestion
			for _, c := range commandList() {
				out = append(out, Suggestion{Text: c.name, Description: c.summary})
			}
			return out
		}}},
		run: runHelp,
	})
}

// helpGroups orders the overview the way a first session goes.
var helpGroups = []struct {
	title string
	names []string
}{
	{"Objects", []string{"open", "pd", "mr", "channel", "cq", "qp"}},
	{"The QP state machine", []string{"modify", "next", "connect", "query", "diagram"}},
	{"Traffic", []string{"post", "poll", "wait", "write", "dump"}},
	{"Two hosts", []string{"listen", "dial"}},
	{"The session", []string{"ls", "show", "rename", "destroy", "events", "explain", "why", "devices", "help"}},
}

func runHelp(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 1); err != nil {
		return Result{}, err
	}
	if len(a.pos) == 1 {
		c := lookupCommand(a.pos[0])
		if c == nil {
			return Result{}, &Error{What: fmt.Sprintf("no command %q%s", a.pos[0], suggest(a.pos[0], commandNames()))}
		}
		return Result{Text: commandHelp(c), Data: map[string]any{"command": c.name, "usage": c.usage, "summary": c.summary}}, nil
	}
	var b strings.Builder
	b.WriteString("verbscope verbs shell: create verbs objects, walk a QP through its states, move real data.\n")
	listed := map[string]bool{}
	for _, g := range helpGroups {
		var lines []string
		for _, n := range g.names {
			if c := commands[n]; c != nil {
				lines = append(lines, fmt.Sprintf("  %-9s %s", c.name, c.summary))
				listed[n] = true
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n%s:\n%s\n", g.title, strings.Join(lines, "\n"))
		}
	}
	var rest []string
	for _, c := range commandList() {
		if !listed[c.name] {
			rest = append(rest, fmt.Sprintf("  %-9s %s", c.name, c.summary))
		}
	}
	if len(rest) > 0 {
		fmt.Fprintf(&b, "\nMore:\n%s\n", strings.Join(rest, "\n"))
	}
	b.WriteString("\n`help COMMAND` explains one with examples. Tab completes commands, names, states and attributes.\n")
	return Result{Text: b.String()}, nil
}

func commandHelp(c *command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %s\n\n%s\n", c.usage, c.summary)
	if len(c.aliases) > 0 {
		fmt.Fprintf(&b, "(also: %s)\n", strings.Join(c.aliases, ", "))
	}
	if len(c.flags) > 0 {
		b.WriteString("\nflags:\n")
		for _, f := range c.flags {
			fmt.Fprintf(&b, "  --%-10s %s\n", f.name, f.help)
		}
	}
	if c.keys != nil {
		if ks := c.keys(nil, nil); len(ks) > 0 {
			b.WriteString("\nattributes:\n")
			for _, k := range ks {
				fmt.Fprintf(&b, "  %-20s %s\n", k.name+"=", k.help)
			}
		}
	}
	if c.help != "" {
		fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(c.help))
	}
	return b.String()
}
