package view

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"ibv_rc_pingpong", "ibv_rc_pingpong"},
		{`back\slash`, `back\slash`},
		{"tab\there", `tab\x09here`},
		{"\x1b]0;pwned\x07\x1b[2J", `\x1b]0;pwned\x07\x1b[2J`},
		{"del\x7f", `del\x7f`},
		{"nl\nnl", `nl\x0anl`},
		{"half\xe2\x82", `half\xe2\x82`},
		{"\xff\xfe", `\xff\xfe`},
		{"csi\u009b31m", `csi\u009b31m`},
		{"bidi\u202eevil", `bidi\u202eevil`},
		{"€😀 日本", "€😀 日本"},
		{"\ufffd", `\ufffd`},
		{"\U000e0001tag", `\U000e0001tag`},
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRowTextPrintable(t *testing.T) {
	r := Row{{Key: "pid", Text: "42"}, {Key: "comm", Text: "\x1b[2Jx"}}
	if diff := cmp.Diff(`pid 42 comm \x1b[2Jx`, r.Text()); diff != "" {
		t.Error(diff)
	}
}
