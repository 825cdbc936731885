package front

import "strings"

// Line is one command of an input, ready for Engine.Exec.
type Line struct {
	Text string // the command, trimmed, without comment or separator
	No   int    // the 1-based line of the input it came from
	Exit bool   // the command is exit or quit: the front end ends the session
}

// Lines cuts what the user typed or pasted into commands. Newlines and
// ';' separate commands, a '#' at the start of a word starts a comment
// that runs to the end of its line, and blank commands are dropped.
// Quotes (single or double) and a backslash protect ';' and '#', as the
// shell's tokenizer reads them; a newline always ends a command, so an
// unclosed quote spoils one line of a paste, not the rest of it (Exec
// then says the quote is unterminated). "\r\n" counts as one newline.
func Lines(input string) []Line {
	var out []Line
	for i, raw := range strings.Split(input, "\n") {
		for _, text := range splitLine(strings.TrimSuffix(raw, "\r")) {
			out = append(out, Line{Text: text, No: i + 1, Exit: isExit(text)})
		}
	}
	return out
}

// splitLine cuts one input line at ';' and drops a '#' comment, both only
// outside quotes and not after a backslash.
func splitLine(line string) []string {
	var parts []string
	start, end := 0, len(line)
	Scan(line, func(ch Char) bool {
		i := ch.At
		switch {
		case ch.Quoted || ch.Syntax:
		case ch.C == ';':
			parts = append(parts, line[start:i])
			start = i + 1
		case ch.C == '#' && (i == 0 || isBlank(line[i-1]) || line[i-1] == ';'):
			end = i
			return false
		}
		return true
	})
	if start < end {
		parts = append(parts, line[start:end])
	}
	var cmds []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			cmds = append(cmds, p)
		}
	}
	return cmds
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// isExit reports whether a command ends the session.
func isExit(cmd string) bool {
	return strings.EqualFold(cmd, "exit") || strings.EqualFold(cmd, "quit")
}
