package front

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestLines(t *testing.T) {
	tests := []struct {
		name, in string
		want     []Line
	}{
		{"empty", "", nil},
		{"blanks only", " \n\t\n;;\n", nil},
		{"one", "open", []Line{{Text: "open", No: 1}}},
		{"trimmed", "  ls  ", []Line{{Text: "ls", No: 1}}},
		{"semicolons", "open; pd ;cq", []Line{{"open", 1, false}, {"pd", 1, false}, {"cq", 1, false}}},
		{"paste with trailing newline", "diagram qp1\n", []Line{{Text: "diagram qp1", No: 1}}},
		{"paste of lines", "open; pd\nls\n", []Line{{"open", 1, false}, {"pd", 1, false}, {"ls", 2, false}}},
		{"crlf", "open\r\npd\r\n\r\nls", []Line{{"open", 1, false}, {"pd", 2, false}, {"ls", 4, false}}},
		{"comment line", "# set up\nopen", []Line{{Text: "open", No: 2}}},
		{"trailing comment", "open rxe0 # the soft-roce device; pd", []Line{{Text: "open rxe0", No: 1}}},
		{"comment after semicolon", "open;# pd", []Line{{Text: "open", No: 1}}},
		{"hash inside a word", "post send qp1 tag=a#b", []Line{{Text: "post send qp1 tag=a#b", No: 1}}},
		{"hash in double quotes", `post send qp1 "a # b"`, []Line{{Text: `post send qp1 "a # b"`, No: 1}}},
		{"semicolon in single quotes", `write mr1 'a;b'; ls`, []Line{{`write mr1 'a;b'`, 1, false}, {"ls", 1, false}}},
		{"escaped quote in double quotes", `write mr1 "say \";\""; ls`, []Line{{`write mr1 "say \";\""`, 1, false}, {"ls", 1, false}}},
		{"escaped semicolon", `write mr1 a\;b`, []Line{{Text: `write mr1 a\;b`, No: 1}}},
		{"unclosed quote spoils one line only", "write mr1 'oops; ls\npd", []Line{{"write mr1 'oops; ls", 1, false}, {"pd", 2, false}}},
		{"exit", "ls; exit; pd", []Line{{"ls", 1, false}, {"exit", 1, true}, {"pd", 1, false}}},
		{"quit any case", "QUIT", []Line{{Text: "QUIT", No: 1, Exit: true}}},
		{"exit with words is a command", "exit now", []Line{{Text: "exit now", No: 1}}},
		{"quoted exit is not", `"exit"`, []Line{{Text: `"exit"`, No: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Lines(tt.in)); diff != "" {
				t.Errorf("Lines(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzLines checks that no input makes Lines panic and that what it
// returns keeps its promises: trimmed, non-empty commands from the input,
// on lines that exist, in order, Exit set exactly for exit and quit.
func FuzzLines(f *testing.F) {
	for _, s := range []string{"open; pd\nls\n", "a 'b;c' # d\r\ne", `x "\"" ; y`, "#\n;\n", "'", `\`, "exit\nquit", "a\\\nb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		lines := Lines(in)
		nLines := strings.Count(in, "\n") + 1
		prev := 0
		for _, l := range lines {
			if l.Text == "" || l.Text != strings.TrimSpace(l.Text) {
				t.Fatalf("Lines(%q): command %q is blank or untrimmed", in, l.Text)
			}
			if strings.ContainsAny(l.Text, "\n") {
				t.Fatalf("Lines(%q): command %q spans lines", in, l.Text)
			}
			if !strings.Contains(in, l.Text) {
				t.Fatalf("Lines(%q): command %q is not in the input", in, l.Text)
			}
			if l.No < 1 || l.No > nLines || l.No < prev {
				t.Fatalf("Lines(%q): line number %d out of order or range (1..%d, previous %d)", in, l.No, nLines, prev)
			}
			prev = l.No
			if want := isExit(l.Text); l.Exit != want {
				t.Fatalf("Lines(%q): %q Exit=%v, want %v", in, l.Text, l.Exit, want)
			}
			if utf8.ValidString(in) && !utf8.ValidString(l.Text) {
				t.Fatalf("Lines(%q): cut a character in half: %q", in, l.Text)
			}
		}
	})
}
