package cli

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/verbscope/verbscope/view"
)

// rowChunk is how much output a rowStream gathers before writing it: a
// few writes for a listing of thousands of objects, and a buffer that
// never grows past one chunk and one row.
const rowChunk = 64 << 10

// rowStream prints rows one at a time: text lines (Row.Text), or with -j
// one JSON array on one line, indented with -p exactly as json.Indent
// indents the whole array. A listing of 10,000 QPs so never holds its
// rows, or its 2 MB of JSON in a buffer grown by doubling: under the
// lab's emulation every page a process touches for the first time costs
// a fault, and the rows and the buffer were most of what it touched.
type rowStream struct {
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

func newRowStream(w io.Writer, o *outFlags) *rowStream {
	s := &rowStream{w: w, json: o.json, pretty: o.pretty}
	if s.json {
		s.buf = append(s.buf, '[')
	}
	return s
}

// add prints one row; r may be reused once add returns.
func (s *rowStream) add(r view.Row) {
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
		s.addJSON(r.AppendJSON)
		return
	}
	s.n++
	if len(s.buf) >= rowChunk {
		s.flush()
	}
}

// compact reports whether the stream writes one JSON object after
// another (-j without -p), so an object may write its JSON itself
// (addJSON) instead of going through a row.
func (s *rowStream) compact() bool { return s.json && !s.pretty }

// addJSON prints one object of a compact stream: write appends its JSON.
func (s *rowStream) addJSON(write func([]byte) []byte) {
	if s.n > 0 {
		s.buf = append(s.buf, ',')
	}
	s.buf = write(s.buf)
	s.n++
	if len(s.buf) >= rowChunk {
		s.flush()
	}
}

func (s *rowStream) flush() {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.w.Write(s.buf)
	}
	s.buf = s.buf[:0]
}

// close ends the output (the array's closing bracket with -j, and a
// newline) and writes what is left.
func (s *rowStream) close() error {
	if s.json {
		if s.pretty && s.n > 0 {
			s.buf = append(s.buf, '\n')
		}
		s.buf = append(s.buf, "]\n"...)
	}
	s.flush()
	return s.err
}
