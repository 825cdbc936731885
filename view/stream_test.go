package view

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"testing"
)

// writeRows prints rows through a RowStream, as res prints them.
func writeRows(w io.Writer, rows []Row, json, pretty bool) error {
	s := NewRowStream(w, json, pretty)
	for _, r := range rows {
		s.Add(r)
	}
	return s.Close()
}

func TestWriteRows(t *testing.T) {
	rows := []Row{
		{{Key: "ifindex", Value: uint64(0), NoText: true}, {Key: "ifname", TextKey: "dev", Text: "rxe0", Value: "rxe0"}, {Key: "cqn", Text: "0", Value: uint64(0)}},
		{{Key: "ifindex", Value: uint64(0), NoText: true}, {Key: "ifname", TextKey: "dev", Text: "rxe0", Value: "rxe0"}, {Key: "cqn", Text: "1", Value: uint64(1)},
			{Key: "lqpn", Text: "1,3-4", Value: []string{"1", "3-4"}}, {Key: "empty", Value: []string{}}},
	}
	var b bytes.Buffer
	writeRows(&b, rows, false, false)
	if got := b.String(); got != "dev rxe0 cqn 0\ndev rxe0 cqn 1 lqpn 1,3-4 empty \n" {
		t.Errorf("text: %q", got)
	}
	b.Reset()
	writeRows(&b, rows, true, false)
	want := `[{"ifindex":0,"ifname":"rxe0","cqn":0},{"ifindex":0,"ifname":"rxe0","cqn":1,"lqpn":["1","3-4"],"empty":[]}]`
	if got := b.String(); got != want+"\n" {
		t.Errorf("json: %q", got)
	}
	// -p indents as json.Indent indents the whole array.
	var indented bytes.Buffer
	json.Indent(&indented, []byte(want), "", "  ")
	b.Reset()
	writeRows(&b, rows, true, true)
	if got := b.String(); got != indented.String()+"\n" {
		t.Errorf("pretty json:\n%s\nwant\n%s", got, indented.String())
	}
	for _, pretty := range []bool{false, true} {
		b.Reset()
		writeRows(&b, nil, true, pretty)
		if got := b.String(); got != "[]\n" {
			t.Errorf("empty json (pretty %v): %q", pretty, got)
		}
	}
}

// A listing larger than a chunk goes out in several writes, and reads as
// one array.
func TestRowStreamChunks(t *testing.T) {
	var b bytes.Buffer
	w := &countingWriter{w: &b}
	s := NewRowStream(w, true, false)
	const n = 5000
	for i := range n {
		s.Add(Row{{Key: "lqpn", Text: strconv.Itoa(i), Value: uint64(i)}})
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var got []map[string]int
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || len(got) != n || got[n-1]["lqpn"] != n-1 {
		t.Fatalf("%d objects, %v", len(got), err)
	}
	if w.writes < 2 || w.max > rowChunk+100 {
		t.Errorf("%d writes of up to %d bytes, want several of about %d", w.writes, w.max, rowChunk)
	}
}

type countingWriter struct {
	w           io.Writer
	writes, max int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	c.max = max(c.max, len(p))
	return c.w.Write(p)
}
