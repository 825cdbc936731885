package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// grammarToken is a piece of a command line the fuzz target puts
// together: bad marks one that makes the command line malformed, bare a
// word standing alone (a second one is malformed too). A flag checked
// after parsing (last) is malformed only when its last use is.
type grammarToken struct {
	words     []string
	bad, bare bool
	last      string
}

func lastWins(t grammarToken) grammarToken { t.last = t.words[0]; return t }

func good(words ...string) grammarToken { return grammarToken{words: words} }
func bad(words ...string) grammarToken  { return grammarToken{words: words, bad: true} }

var (
	flagTokens = []grammarToken{good("-j"), good("--json"), good("-p"), good("--pretty"), good("-d"), good("-dd"),
		good("--details"), good("-d=false"), bad("-d=x"), bad("--bogus"), bad("-q")}
	devTokens = []grammarToken{good("dev", "rxe0"), good("dev=rxe0"), good("dev=rxe0,rxe0"), bad("dev", "nope0"),
		bad("dev=rxe0/1"), bad("dev="), {words: []string{"rxe0"}, bare: true}, {words: []string{"nope0"}, bare: true, bad: true}}
	linkTokens = []grammarToken{good("link", "rxe0/1"), good("link=rxe0"), good("link=rxe0/-"), bad("link", "rxe0/x"),
		bad("link=nope0/1"), bad("link=/1"), good("port", "1"), good("port=0-3"), bad("port=x"), bad("port", "2-1"),
		{words: []string{"rxe0/1"}, bare: true}}
	intervalTokens = []grammarToken{good("--interval=1s"), good("--interval", "20ms"), bad("--interval=xyz"),
		bad("--interval", "0"), bad("--interval=-1s")}
	// resTokens leave out devices that do not exist: res asks the kernel
	// which do, after parsing.
	resTokens = []grammarToken{good("state", "RTS"), good("state=rts,err"), bad("state=BOGUS"),
		good("type", "RC"), bad("type=XX"), good("lqpn", "0-6,17"), bad("lqpn=x"), good("path-mig-state=ARMED"),
		bad("path-mig-state", "gone"), good("link", "rxe0/1"), good("dev=rxe0"), bad("link=rxe0/0"), bad("nope=1"),
		{words: []string{"rxe0/1"}, bare: true}, good("-j"), good("-p"), good("-dd"), good("--json"), bad("-x")}
)

func cat(parts ...[]grammarToken) []grammarToken {
	var out []grammarToken
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var grammarCommands = []struct {
	name   string
	tokens []grammarToken
}{
	{"devices", cat(flagTokens, devTokens)},
	{"ports", cat(flagTokens, devTokens, linkTokens, []grammarToken{good("state", "ACTIVE"), good("state=down"), bad("state=BOGUS")})},
	{"gids", cat(flagTokens, devTokens, linkTokens, []grammarToken{good("type", "v2"), good("type=RoCE v2"), bad("type=v3"), good("index", "1"), bad("index=x")})},
	{"irqs", cat(flagTokens, devTokens, intervalTokens)},
	{"counters", cat(flagTokens, devTokens, linkTokens, intervalTokens, []grammarToken{good("name", "pkts"), good("group=hw_counters"),
		bad("group", "nope"), good("--errors"), good("--nonzero")})},
	{"doctor", cat(flagTokens, []grammarToken{lastWins(good("--only", "modules,devices")), good("--no-probe"),
		lastWins(bad("--only", "nope")), lastWins(bad("--mr-size", "0")), lastWins(good("--mr-size", "2")), bad("rxe0")})},
	{"res", resTokens},
}

// FuzzGrammar puts command lines together from good and bad pieces in
// any order: a line with a bad piece exits 2, a good one does not, and
// no line panics.
func FuzzGrammar(f *testing.F) {
	for _, seed := range [][]byte{{0}, {1, 7, 3}, {2, 20, 0, 2}, {3, 13, 5}, {4, 30, 31, 4}, {5, 11, 12}, {6, 0, 1, 3}, {6, 2, 3, 15}} {
		f.Add(seed)
	}
	noWaitFuzz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 10 {
			return
		}
		c := grammarCommands[int(data[0])%len(grammarCommands)]
		var words []string
		wantBad, bare, last := false, 0, map[string]bool{}
		for _, b := range data[1:] {
			tok := c.tokens[int(b)%len(c.tokens)]
			words = append(words, tok.words...)
			if tok.last != "" {
				last[tok.last] = tok.bad
				continue
			}
			wantBad = wantBad || tok.bad
			if tok.bare {
				bare++
			}
		}
		wantBad = wantBad || bare > 1
		for _, b := range last {
			wantBad = wantBad || b
		}
		args := append([]string{c.name, "qp"}, words...)
		if c.name != "res" {
			args = treeArgs(rxe0Tree, c.name, words...)
		}
		code, stdout, stderr := runCLI(args...)
		switch {
		case wantBad && code != 2:
			t.Fatalf("%q: exit %d, want 2 for a malformed line\nstdout %s\nstderr %s", args, code, stdout, stderr)
		case !wantBad && code == 2:
			t.Fatalf("%q: exit 2 for a valid line\nstderr %s", args, stderr)
		case !wantBad && c.name != "res" && code != 0:
			t.Fatalf("%q: exit %d\nstderr %s", args, code, stderr)
		}
		checkJSONOut(t, args, code, stdout)
	})
}

// FuzzArgs runs every view command on any argument list: no panic, an
// exit status of 0, 1 or 2, and JSON output that is valid.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{"", "rxe0", "rxe0/1 -j", "dev rxe0 port 1", "state=BOGUS", "-j -p link rxe0/1",
		"--interval=xyz", "-dd x", "port", "= = =", "--", "dev=\xff", "name \x00 -j"} {
		for i := range grammarCommands {
			f.Add(uint8(i), s)
		}
	}
	noWaitFuzz(f)
	f.Fuzz(func(t *testing.T, cmd uint8, line string) {
		c := grammarCommands[int(cmd)%len(grammarCommands)]
		words := strings.Fields(line)
		for _, w := range words {
			// Only the recorded tree is read, and nothing is written.
			if strings.Contains(w, "sysfs") || strings.Contains(w, "procfs") || strings.Contains(w, "root") || strings.Contains(w, "record") {
				return
			}
		}
		args := append([]string{c.name}, words...)
		if c.name != "res" {
			args = treeArgs(rxe0Tree, c.name, words...)
		}
		code, stdout, _ := runCLI(args...)
		if code < 0 || code > 2 {
			t.Fatalf("%q: exit %d", args, code)
		}
		checkJSONOut(t, args, code, stdout)
	})
}

// checkJSONOut fails when a command printed JSON that is not valid JSON
// in valid UTF-8.
func checkJSONOut(t *testing.T, args []string, code int, stdout string) {
	t.Helper()
	if code != 0 {
		return
	}
	s := strings.TrimSpace(stdout)
	if s == "" || (s[0] != '[' && s[0] != '{' && s != "null") {
		return
	}
	if !json.Valid([]byte(s)) || !utf8.ValidString(s) {
		t.Fatalf("%q: invalid JSON:\n%s", args, s)
	}
}

func noWaitFuzz(f *testing.F) {
	sampleWait = func(context.Context, time.Duration) error { return nil }
	f.Cleanup(func() { sampleWait = sleepCtx })
}
