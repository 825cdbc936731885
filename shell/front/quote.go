package front

// Char is one byte of a command line as the shell's quoting reads it:
// single and double quotes group, and a backslash (outside single quotes)
// escapes the byte after it. Lines cuts commands and the shell's
// tokenizer cuts words by the same reading, so both agree on what a ';',
// a '#' or a space between quotes is.
type Char struct {
	At     int  // byte offset in the line
	C      byte // the byte
	Quoted bool // between quotes or escaped: never a separator
	Syntax bool // a quote or backslash that does the quoting: not part of a word
}

// Scan calls each for every byte of line in order, until each returns
// false, and returns the quote (' or ") left open at the end of the line,
// or 0.
func Scan(line string, each func(Char) bool) (open byte) {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		var ch []Char
		switch {
		case quote != 0 && c == quote:
			quote = 0
			ch = []Char{{At: i, C: c, Syntax: true}}
		case c == '\\' && quote != '\'' && i+1 < len(line):
			ch = []Char{{At: i, C: c, Syntax: true}, {At: i + 1, C: line[i+1], Quoted: true}}
			i++
		case quote != 0:
			ch = []Char{{At: i, C: c, Quoted: true}}
		case c == '\'' || c == '"':
			quote = c
			ch = []Char{{At: i, C: c, Syntax: true}}
		default:
			ch = []Char{{At: i, C: c}}
		}
		for _, x := range ch {
			if !each(x) {
				return quote
			}
		}
	}
	return quote
}
