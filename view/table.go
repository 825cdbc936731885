package view

import (
	"io"
	"strings"

	"github.com/mattn/go-runewidth"
)

// WriteTable prints rows as aligned columns separated by two spaces,
// like `ip -br`: the columns are the fields with text (NoText fields left
// out, values Printable), titled by their TextKey, in the first row's
// order. Widths count display cells, so a wide character (a CJK comm)
// keeps the columns straight. Every line starts with indent.
func WriteTable(w io.Writer, indent string, rows []Row) error {
	if len(rows) == 0 {
		return nil
	}
	var cells [][]string
	var head []string
	for _, f := range rows[0] {
		if !f.NoText {
			head = append(head, f.TextKey)
		}
	}
	cells = append(cells, head)
	for _, r := range rows {
		var line []string
		for _, f := range r {
			if !f.NoText {
				line = append(line, f.Display())
			}
		}
		cells = append(cells, line)
	}
	var width []int
	for _, line := range cells {
		for i, c := range line {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], runewidth.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, line := range cells {
		var l strings.Builder
		l.WriteString(indent)
		for i, c := range line {
			l.WriteString(c)
			if i < len(line)-1 {
				l.WriteString(strings.Repeat(" ", width[i]-runewidth.StringWidth(c)+2))
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
