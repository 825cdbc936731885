package view

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Columns line up by display cells: a wide character takes two, a
// combining accent none, and NoText fields are not columns.
func TestWriteTableCells(t *testing.T) {
	row := func(name, comm string) Row {
		return Row{IDField(name), {Key: "name", TextKey: "NAME", Text: name},
			{Key: "hidden", Text: "x", NoText: true}, {Key: "comm", TextKey: "COMM", Text: comm}, {Key: "n", TextKey: "N", Text: "1"}}
	}
	var b bytes.Buffer
	if err := WriteTable(&b, "  ", []Row{row("a", "进程"), row("bbbb", "e\u0301t\u00e9"), row("c", "")}); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"  NAME  COMM  N\n" +
		"  a     进程  1\n" +
		"  bbbb  e\u0301té   1\n" +
		"  c           1\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	b.Reset()
	if err := WriteTable(&b, "", nil); err != nil || b.Len() != 0 {
		t.Errorf("no rows: %q, %v", b.String(), err)
	}
}

// A comm of escape sequences is quoted and its columns measured quoted.
func TestWriteTableEscapes(t *testing.T) {
	rows := []Row{
		{{Key: "pid", TextKey: "PID", Text: "42"}, {Key: "comm", TextKey: "COMM", Text: "\x1b[2J\x1b]0;x\x07"}, {Key: "n", TextKey: "N", Text: "1"}},
		{{Key: "pid", TextKey: "PID", Text: "43"}, {Key: "comm", TextKey: "COMM", Text: "ok"}, {Key: "n", TextKey: "N", Text: "2"}},
	}
	var b bytes.Buffer
	if err := WriteTable(&b, "", rows); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"PID  COMM                 N\n" +
		`42   \x1b[2J\x1b]0;x\x07  1` + "\n" +
		"43   ok                   2\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
