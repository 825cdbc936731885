package view

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzAppendJSONString checks that any string, however broken its
// UTF-8, makes valid JSON that is valid UTF-8 and decodes to what
// encoding/json's own encoding of it decodes to.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "rxe0", "ibv_rc_pingpon\xe2\x82", "\xff", "a\"\\\x00\x1f", "€😀", "\xed\xa0\x80", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := Row{{Key: s, Value: s}, {Key: "l", Value: []string{s, s}}}.AppendJSON(nil)
		if !utf8.Valid(b) {
			t.Fatalf("invalid UTF-8: %q", b)
		}
		if !json.Valid(b) {
			t.Fatalf("invalid JSON: %q", b)
		}
		got := AppendJSONString(nil, s)
		var dec string
		if err := json.Unmarshal(got, &dec); err != nil {
			t.Fatalf("%q: %v", got, err)
		}
		std, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var want string
		if err := json.Unmarshal(std, &want); err != nil {
			t.Fatal(err)
		}
		if dec != want {
			t.Fatalf("%q decodes to %q, encoding/json's %s to %q", got, dec, std, want)
		}
	})
}
