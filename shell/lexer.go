package shell

import (
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/shell/front"
)

// token is one word of a command line with where it starts and ends, so
// completion knows what the cursor is in.
type token struct {
	text       string // unquoted
	start, end int    // byte offsets in the line
	quoted     bool
}

// tokenize splits one command into words the way a small shell does:
// spaces separate, single and double quotes group ("PING PONG"), a
// backslash escapes the next character outside single quotes. An
// unterminated quote is an error, except when partial is set (completion
// of a line still being typed).
func tokenize(line string, partial bool) ([]token, error) {
	var toks []token
	var cur strings.Builder
	in := false // inside a word
	start := 0
	quoted := false
	flush := func(end int) {
		if in {
			toks = append(toks, token{text: cur.String(), start: start, end: end, quoted: quoted})
		}
		cur.Reset()
		in, quoted = false, false
	}
	open := front.Scan(line, func(ch front.Char) bool {
		if !ch.Quoted && (ch.C == ' ' || ch.C == '\t') {
			flush(ch.At)
			return true
		}
		if !in {
			in, start = true, ch.At
		}
		switch {
		case ch.Syntax && ch.C != '\\':
			quoted = true
		case !ch.Syntax:
			cur.WriteByte(ch.C)
		}
		return true
	})
	if open != 0 && !partial {
		return nil, &Error{What: fmt.Sprintf("unterminated %c quote", open), Fix: "close it, or escape it with \\"}
	}
	flush(len(line))
	return toks, nil
}
