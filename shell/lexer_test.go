package shell

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func words(toks []token) []string {
	var out []string
	for _, t := range toks {
		out = append(out, t.text)
	}
	return out
}

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"modify qp1 init port=1", []string{"modify", "qp1", "init", "port=1"}},
		{`write mr1 "PING PONG"`, []string{"write", "mr1", "PING PONG"}},
		{`write mr1 'a "b"'`, []string{"write", "mr1", `a "b"`}},
		{`write mr1 "say \"hi\""`, []string{"write", "mr1", `say "hi"`}},
		{`a\ b c`, []string{"a b", "c"}},
		{"  spaced\t\tout  ", []string{"spaced", "out"}},
		{`x=""`, []string{"x="}},
		{"", nil},
	} {
		toks, err := tokenize(tc.in, false)
		if err != nil {
			t.Errorf("tokenize(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, words(toks)); diff != "" {
			t.Errorf("tokenize(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	if _, err := tokenize(`write mr1 "open`, false); err == nil {
		t.Error("unterminated quote: no error")
	}
	toks, err := tokenize(`write mr1 "open`, true)
	if err != nil || len(toks) != 3 || toks[2].text != "open" {
		t.Errorf("partial tokenize: %v %v", words(toks), err)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{`write mr1 "PING"`, `a\`, `"`, `'x' "y\"z" w=1 --force; b # c`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, partial := range []bool{false, true} {
			toks, err := tokenize(s, partial)
			if err != nil {
				continue
			}
			for _, tk := range toks {
				if tk.start < 0 || tk.end > len(s) || tk.start > tk.end {
					t.Fatalf("token %+v out of range of %q", tk, s)
				}
			}
		}
	})
}
