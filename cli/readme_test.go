package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/ui"
)

// The README is what a newcomer reads first; these tests keep every
// command and flag it names real, so renaming a command or removing a
// flag fails here until the README says the same.

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	flagSpan = regexp.MustCompile("`(-[^`]*)`")
	// A word after "verbscope" that stands where a command does; others
	// ("verbscope · lab" in a title) are output, not a command line.
	commandWord = regexp.MustCompile(`^(-{1,2}[a-z]+|[a-z][a-z_-]*)$`)
)

// readmeCommands are the commands the README's command table lists (the
// first code span of each row of the table whose first column is
// "command"), and the flags its rows name in code spans of their own.
func readmeCommands(t *testing.T, readme string) (rows map[string]bool, rowFlags []invocation) {
	t.Helper()
	rows = map[string]bool{}
	inTable := false
	for _, line := range strings.Split(readme, "\n") {
		if !strings.HasPrefix(line, "|") {
			inTable = false
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		first := strings.ToLower(strings.TrimSpace(cells[0]))
		switch {
		case first == "command":
			inTable = true
			if len(cells) < 3 {
				t.Errorf("the command table's header %q: want command, what it does and the privilege it needs", line)
			}
			continue
		case !inTable || strings.HasPrefix(first, "-") || strings.HasPrefix(first, ":"):
			continue // another table, or the header's rule
		}
		if len(cells) < 3 || strings.TrimSpace(cells[1]) == "" || strings.TrimSpace(cells[2]) == "" {
			t.Errorf("command table row %q: want the command, one line on it and its privilege", line)
		}
		span := codeSpan.FindStringSubmatch(cells[0])
		if span == nil {
			t.Errorf("command table row %q names no command in a code span", line)
			continue
		}
		words := strings.Fields(strings.TrimPrefix(span[1], "verbscope "))
		if len(words) == 0 {
			t.Errorf("command table row %q: empty command", line)
			continue
		}
		rows[words[0]] = true
		// A flag the row names alone (`--follow`) is the row's command's.
		for _, m := range flagSpan.FindAllStringSubmatch(line, -1) {
			rowFlags = append(rowFlags, invocation{line: line, cmd: words[0], flags: []string{m[1]}})
		}
	}
	return rows, rowFlags
}

// codeLines are the README's code: fenced and indented blocks, and the
// code spans of every paragraph (a span may break across lines). A block
// that is a transcript (it has lines prompted with "$ ") gives only its
// prompted lines: the rest is what the program printed.
func codeLines(readme string) []string {
	var out, block, para []string
	spans := func() {
		text := strings.Join(para, " ")
		for _, m := range codeSpan.FindAllStringSubmatch(text, -1) {
			out = append(out, m[1])
		}
		para = nil
	}
	flush := func() {
		// A line ending in a backslash goes on in the next.
		for i := 0; i+1 < len(block); i++ {
			if strings.HasSuffix(block[i], "\\") {
				block[i] = strings.TrimSuffix(block[i], "\\") + " " + strings.TrimSpace(block[i+1])
				block = append(block[:i+1], block[i+2:]...)
				i--
			}
		}
		var prompted []string
		for _, l := range block {
			if p, ok := strings.CutPrefix(strings.TrimSpace(l), "$ "); ok {
				prompted = append(prompted, p)
			}
		}
		if prompted != nil {
			block = prompted
		}
		out = append(out, block...)
		block = nil
	}
	fenced := false
	for _, line := range strings.Split(readme, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if fenced {
				flush()
			}
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(line, "    ") {
			spans()
			block = append(block, line)
			continue
		}
		flush()
		if strings.TrimSpace(line) == "" {
			spans()
			continue
		}
		para = append(para, strings.TrimSpace(line))
	}
	flush()
	spans()
	return out
}

// shellWords splits a line as sh would, roughly: quotes make one word
// (and their text is returned too, since it may hold a command of its
// own, as in `verbscope lab -- 'verbscope shell -c ...'`).
func shellWords(line string) (words, quoted []string) {
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				end = len(line) - i - 1
			}
			body := line[i+1 : i+1+end]
			quoted = append(quoted, body)
			cur.WriteString(body)
			inWord = true
			i += end + 1
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, quoted
}

// invocation is `verbscope CMD` and the flags that follow it on the line.
type invocation struct {
	line  string
	cmd   string
	flags []string
}

// invocations finds every `verbscope CMD [flags]` in a line of code,
// quoted ones included. Flags end at the next command of the line: a
// separator, a redirection, `--` (what follows belongs to another
// program) or a comment.
func invocations(line string) []invocation {
	words, quoted := shellWords(line)
	var out []invocation
	for i := 0; i < len(words); i++ {
		w := strings.TrimLeft(words[i], "$(")
		if w != "verbscope" || i+1 == len(words) {
			continue
		}
		cmd := words[i+1]
		if !commandWord.MatchString(cmd) {
			continue
		}
		inv := invocation{line: line, cmd: cmd}
		for _, raw := range words[i+2:] {
			f := strings.TrimRight(raw, ");")
			if f == "--" || f == "|" || f == "||" || f == "&&" || f == "&" || f == "verbscope" ||
				strings.HasPrefix(f, "#") || strings.HasPrefix(f, ">") || strings.HasPrefix(f, "<") {
				break
			}
			if len(f) > 1 && f[0] == '-' {
				inv.flags = append(inv.flags, f)
			}
			if strings.HasSuffix(raw, ";") {
				break
			}
		}
		out = append(out, inv)
	}
	for _, q := range quoted {
		out = append(out, invocations(q)...)
	}
	return out
}

// flagSet builds a command's flags as run does before parsing them.
func flagSet(c *command) *flag.FlagSet {
	env := &Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}
	fs := newFlagSet(c, env)
	c.Setup(fs, env)
	return fs
}

func readREADME(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatalf("the README: %v", err)
	}
	return string(b)
}

// TestReadmeCommandTable: the README's command table lists every
// registered command, and nothing else.
func TestReadmeCommandTable(t *testing.T) {
	listed, _ := readmeCommands(t, readREADME(t))
	registered := map[string]bool{}
	for _, c := range commands() {
		registered[c.Name] = true
		if !listed[c.Name] {
			t.Errorf("the README's command table lacks `verbscope %s` (%s): add a row", c.Name, c.Summary)
		}
	}
	for name := range listed {
		if !registered[name] {
			t.Errorf("the README's command table lists `verbscope %s`, which is no command (`verbscope help` lists them)", name)
		}
	}
	if len(registered) == 0 {
		t.Fatal("no commands registered")
	}
}

// TestReadmeFlags: every `verbscope CMD --flag` in the README's code names
// a command that exists and flags that command has.
func TestReadmeFlags(t *testing.T) {
	readme := readREADME(t)
	_, invs := readmeCommands(t, readme)
	for _, l := range codeLines(readme) {
		invs = append(invs, invocations(l)...)
	}
	// The README shows many commands with flags; finding few means the
	// parser above went blind, not that the README is right.
	nflags := 0
	for _, inv := range invs {
		nflags += len(inv.flags)
	}
	if len(invs) < 20 || nflags < 15 {
		t.Fatalf("found %d verbscope command lines with %d flags in the README: the parser misses them", len(invs), nflags)
	}
	for _, inv := range invs {
		switch inv.cmd {
		case "-h", "-help", "--help", "-version", "--version":
			continue
		case "help":
			// `verbscope help COMMAND`: the command must exist.
			words, _ := shellWords(inv.line)
			for i := 0; i+2 < len(words); i++ {
				if words[i] == "verbscope" && words[i+1] == "help" && lookup(words[i+2]) == nil &&
					words[i+2] != strings.ToUpper(words[i+2]) { // COMMAND is a placeholder
					t.Errorf("README: %q: no command %q", inv.line, words[i+2])
				}
			}
			continue
		}
		c := lookup(inv.cmd)
		if c == nil {
			t.Errorf("README: %q: no command %q (`verbscope help` lists them)", inv.line, inv.cmd)
			continue
		}
		fs := flagSet(c)
		for _, f := range inv.flags {
			name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
			if name == "h" || name == "help" {
				continue
			}
			if fs.Lookup(name) == nil {
				t.Errorf("README: %q: `verbscope %s` has no flag %s (`verbscope help %s` lists them)", inv.line, inv.cmd, f, inv.cmd)
			}
		}
	}
}

// TestReadmeCodeLines: blocks, spans and transcripts.
func TestReadmeCodeLines(t *testing.T) {
	readme := "Run `verbscope ports -j` or:\n\n    verbscope res\n\nA `verbscope\nshell --json` session:\n\n" +
		"    $ verbscope shell\n    verbscope verbs shell. 'help' lists the commands\n    verbs> open\n\n" +
		"```\nverbscope devices \\\n  -j\n```\n"
	got := codeLines(readme)
	want := []string{"verbscope ports -j", "    verbscope res", "verbscope shell --json", "verbscope shell", "verbscope devices  -j"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("code lines (-want +got):\n%s", diff)
	}
}

// TestReadmeParser pins the parser on lines like the README's.
func TestReadmeParser(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string // "cmd flag flag", one per invocation
	}{
		{"verbscope res qp state=RTS -j", []string{"res -j"}},
		{"verbscope lab -i -- verbscope shell", []string{"lab -i", "shell"}},
		{"verbscope lab --share . -- 'verbscope shell -f /mnt/host/x.vs --json'", []string{"lab --share", "shell -f --json"}},
		{"verbscope export --web.config.file=web.yml   # TLS", []string{"export --web.config.file=web.yml"}},
		{"verbscope counters -j --interval 2s | jq '.[] | .rate'", []string{"counters -j --interval"}},
		{"ibv_rc_pingpong -g $(verbscope gids -j | jq .x)", []string{"gids -j"}},
		{"verbscope · lab · kernel 6.1", nil},
		{"verbs> open; pd", nil},
	} {
		var got []string
		for _, inv := range invocations(tc.line) {
			got = append(got, strings.Join(append([]string{inv.cmd}, inv.flags...), " "))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.line, diff)
		}
	}
}

// TestReadmeViews keeps the README's dashboard to the view registry: its
// screen is the overview's 80x24 golden as the view tests draw it (blank
// rows and trailing blanks left out), with the tab row the tab-row
// golden keeps in its place, and the paragraph under it names
// every view (and nothing that is not one) in code spans.
func TestReadmeViews(t *testing.T) {
	readme := readREADME(t)
	want := ui.ViewNames()
	golden, err := os.ReadFile(filepath.Join("..", "ui", "testdata", "TestViewsGolden", "rxe0", want[0], "80x24.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var screen []string
	for _, l := range strings.Split(string(golden), "\n") {
		if l == "[the tab row: TestTabRowGolden]" {
			l = tabRow(t, want[0])
		}
		if l = strings.TrimRight(l, " "); l != "" {
			screen = append(screen, "    "+l)
		}
	}
	if !strings.Contains(readme, strings.Join(screen, "\n")+"\n") {
		t.Errorf("the README's dashboard screen is not the %s view's 80x24 golden; it should read:\n%s", want[0], strings.Join(screen, "\n"))
	}
	start := strings.Index(readme, "one view at a time")
	end := strings.Index(readme[max(start, 0):], "At the bottom")
	if start < 0 || end < 0 {
		t.Fatal(`no paragraph from "one view at a time" to "At the bottom" in the README`)
	}
	var named []string
	for _, m := range codeSpan.FindAllStringSubmatch(readme[start:start+end], -1) {
		if strings.HasPrefix(m[1], "-") || strings.HasPrefix(m[1], "verbscope") {
			continue // a flag or a command, not views
		}
		named = append(named, strings.Fields(m[1])...)
	}
	slices.Sort(named)
	sorted := slices.Sorted(slices.Values(want))
	if diff := cmp.Diff(sorted, named); diff != "" {
		t.Errorf("the README's paragraph on the views names other views than the registry (-registry +README):\n%s", diff)
	}
}

// tabRow is the tab row at 80 columns with view shown, as ui's
// TestTabRowGolden keeps it ("VIEW |ROW|" per line).
func tabRow(t *testing.T, view string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "ui", "testdata", "TestTabRowGolden", "80x24.golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(l, "|")
		if ok && strings.TrimSpace(name) == view {
			return strings.TrimSuffix(rest, "|")
		}
	}
	t.Fatalf("ui's TestTabRowGolden has no 80-column row for %s", view)
	return ""
}
