package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// rowChunk is how much output a rowStream gathers before writing it: a
// few writes for a listing of thousands of objects, and a buffer that
// never grows past one chunk and one row.
const rowChunk = 64 << 10

// RowStream prints rows one at a time: text lines (Row.Text), or with -j
// one JSON array on one line, indented with -p exactly as json.Indent
// indents the whole array. A listing of 10,000 QPs so never holds its
// rows, or its 2 MB of JSON in a buffer grown by doubling: under the
// lab's emulation every page a process touches for the first time costs
// a fault, and the rows and the buffer were most of what it touched.
type RowStream struct {
	w            io.Writer
	json, pretty bool
	// n counts the rows added.
	n int
	// buf is the output not yet written.
	buf []byte
	// row and indented hold one row's JSON before and after indenting.
	row      []byte
	indented bytes.Buffer
	// err is the first error; what comes after it is dropped.
	err error
}

// NewRowStream returns a stream of rows to w: text lines, or with json
// one array, indented with pretty.
func NewRowStream(w io.Writer, json, pretty bool) *RowStream {
	s := &RowStream{w: w, json: json, pretty: pretty}
	if s.json {
		s.buf = append(s.buf, '[')
	}
	return s
}

// Add prints one row; r may be reused once Add returns.
func (s *RowStream) Add(r Row) {
	switch {
	case !s.json:
		s.buf = append(s.buf, r.Text()...)
		s.buf = append(s.buf, '\n')
	case s.pretty:
		if s.n > 0 {
			s.buf = append(s.buf, ',')
		}
		// An element of an indented array starts on a line of its own,
		// its lines one level in.
		s.row = r.AppendJSON(s.row[:0])
		s.indented.Reset()
		if err := json.Indent(&s.indented, s.row, "  ", "  "); err != nil && s.err == nil {
			s.err = err
		}
		s.buf = append(s.buf, "\n  "...)
		s.buf = append(s.buf, s.indented.Bytes()...)
	default:
		s.AddJSON(r.AppendJSON)
		return
	}
	s.n++
	if len(s.buf) >= rowChunk {
		s.flush()
	}
}

// Compact reports whether the stream writes one JSON object after
// another (-j without -p), so an object may write its JSON itself
// (AddJSON) instead of going through a row.
func (s *RowStream) Compact() bool { return s.json && !s.pretty }

// N returns how many rows were added.
func (s *RowStream) N() int { return s.n }

// AddJSON prints one object of a compact stream: write appends its JSON.
func (s *RowStream) AddJSON(write func([]byte) []byte) {
	if s.n > 0 {
		s.buf = append(s.buf, ',')
	}
	s.buf = write(s.buf)
	s.n++
	if len(s.buf) >= rowChunk {
		s.flush()
	}
}

func (s *RowStream) flush() {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.w.Write(s.buf)
	}
	s.buf = s.buf[:0]
}

// Close ends the output (the array's closing bracket with -j, and a
// newline) and writes what is left.
func (s *RowStream) Close() error {
	if s.json {
		if s.pretty && s.n > 0 {
			s.buf = append(s.buf, '\n')
		}
		s.buf = append(s.buf, "]\n"...)
	}
	s.flush()
	return s.err
}

// WriteRowsJSON prints rows as one JSON array, indented with pretty; no
// rows (nil) is null, as the sysfs views' JSON always was.
func WriteRowsJSON(w io.Writer, rows []Row, pretty bool) error {
	if rows == nil {
		return WriteJSON(w, []byte("null"), pretty)
	}
	s := NewRowStream(w, true, pretty)
	for _, r := range rows {
		s.Add(r)
	}
	return s.Close()
}

// WriteRows prints rows as a table (WriteTable), or with json as one
// array (WriteRowsJSON): what each sysfs view prints.
func WriteRows(w io.Writer, rows []Row, json, pretty bool) error {
	if json {
		return WriteRowsJSON(w, rows, pretty)
	}
	return WriteTable(w, "", rows)
}

// WriteJSON prints one JSON value and a newline, indented with pretty
// as json.MarshalIndent would.
func WriteJSON(w io.Writer, b []byte, pretty bool) error {
	if pretty {
		var buf bytes.Buffer
		if err := json.Indent(&buf, b, "", "  "); err != nil {
			return err
		}
		b = buf.Bytes()
	}
	_, err := fmt.Fprintf(w, "%s\n", b)
	return err
}
