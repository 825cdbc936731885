package shell

import (
	"fmt"
	"strings"
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
	var quote byte
	start := 0
	quoted := false
	flush := func(end int) {
		if in {
			toks = append(toks, token{text: cur.String(), start: start, end: end, quoted: quoted})
		}
		cur.Reset()
		in, quoted = false, false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(line) {
				i++
				cur.WriteByte(line[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			if !in {
				in, start = true, i
			}
			quote, quoted = c, true
		case c == '\\' && i+1 < len(line):
			if !in {
				in, start = true, i
			}
			i++
			cur.WriteByte(line[i])
		case c == ' ' || c == '\t':
			flush(i)
		default:
			if !in {
				in, start = true, i
			}
			cur.WriteByte(c)
		}
	}
	if quote != 0 && !partial {
		return nil, &Error{What: fmt.Sprintf("unterminated %c quote", quote), Fix: "close it, or escape it with \\"}
	}
	flush(len(line))
	return toks, nil
}
