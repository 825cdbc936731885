package view

import (
	"testing"
)

func TestRowText(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  Row
		want string
	}{
		{"empty", nil, ""},
		{"keys and values", Row{{Key: "lqpn", Text: "17"}, {Key: "state", Text: "RTS"}}, "lqpn 17 state RTS"},
		{"text key", Row{{Key: "ifname", TextKey: "dev", Text: "rxe0"}}, "dev rxe0"},
		{"bare", Row{{Key: "ifindex", Text: "0:", Bare: true}, {Key: "ifname", Text: "rxe0:", Bare: true}, {Key: "pd", Text: "1"}}, "0: rxe0: pd 1"},
		{"no text", Row{{Key: "ifindex", Text: "3", NoText: true}, {Key: "link", Text: "rxe0/1"}}, "link rxe0/1"},
	} {
		if got := tc.row.Text(); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestRowGet(t *testing.T) {
	r := Row{{Key: "a", Text: "1"}, {Key: "b", Text: "2"}, {Key: "b", Text: "3"}}
	if f, ok := r.Get("b"); !ok || f.Text != "2" {
		t.Errorf("Get(b) = %+v, %v; want the first b", f, ok)
	}
	if _, ok := r.Get("c"); ok {
		t.Error("Get(c) found a field that is not there")
	}
}

func TestRowJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  Row
		want string
	}{
		{"empty", nil, `{}`},
		{"types", Row{
			{Key: "u", Value: uint64(1 << 63)}, {Key: "i", Value: int64(-2)}, {Key: "b", Value: true},
			{Key: "s", Value: "x"}, {Key: "l", Value: []string{"17", "20-22"}}, {Key: "n", Value: nil},
		}, `{"u":9223372036854775808,"i":-2,"b":true,"s":"x","l":["17","20-22"],"n":null}`},
		{"no json", Row{{Key: "link", Value: "rxe0/1", NoJSON: true}, {Key: "port", Value: uint64(1)}}, `{"port":1}`},
		{"escapes", Row{{Key: "comm", Value: "a\"b\\c\x01\t\n\r\f\b\x7f"}}, `{"comm":"a\"b\\c\u0001\t\n\r\f\b` + "\x7f" + `"}`},
		{"valid utf-8 kept", Row{{Key: "comm", Value: "dé€😀"}}, `{"comm":"dé€😀"}`},
		{"cut character", Row{{Key: "comm", Value: "ab\xe2\x82"}}, `{"comm":"ab\ufffd\ufffd"}`},
		{"stray bytes", Row{{Key: "comm", Value: "\xff\x80x\xc0\xaf"}}, `{"comm":"\ufffd\ufffdx\ufffd\ufffd"}`},
		{"surrogate", Row{{Key: "comm", Value: "\xed\xa0\x80"}}, `{"comm":"\ufffd\ufffd\ufffd"}`},
		{"invalid key", Row{{Key: "k\xff", Value: "v"}}, `{"k\ufffd":"v"}`},
	} {
		if got := string(tc.row.AppendJSON(nil)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
