package view

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The test kinds are schemas like the ones inspect and sysfsmon register.
func init() {
	Register(Schema{Kind: "test-qp", Bare: "link", Keys: []Key{
		{Name: "link", Field: "ifname", Match: MatchLink},
		{Name: "dev", Field: "ifname", Match: MatchDevice},
		{Name: "lqpn", Match: MatchNumber},
		{Name: "state", Match: MatchWord, Values: []string{"RESET", "INIT", "RTS", "ERR"}},
		{Name: "type", Match: MatchSuffix, Values: []string{"v1", "v2"}},
		{Name: "comm", Match: MatchSubstring},
	}})
	Register(Schema{Kind: "test-dev", Bare: "dev", Keys: []Key{{Name: "dev", Match: MatchDevice}}})
	Register(Schema{Kind: "test-none", Keys: []Key{{Name: "pid", Match: MatchNumber}}})
}

func qpRow(dev string, port, lqpn uint64, state, typ, comm string) Row {
	r := Row{IDField(dev + "/" + state), {Key: "ifname", Text: dev, Value: dev}}
	if port > 0 {
		r = append(r, Field{Key: "port", Text: itoa(port), Value: port, Num: port, IsNum: true, NoText: true})
	}
	return append(r,
		Field{Key: "lqpn", Text: itoa(lqpn), Value: lqpn, Num: lqpn, IsNum: true},
		Field{Key: "state", Text: state, Value: state},
		Field{Key: "type", Text: typ, Value: typ},
		Field{Key: "comm", Text: "[" + comm + "]", Value: comm})
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }

func TestParseAndMatch(t *testing.T) {
	rows := []Row{
		qpRow("rxe0", 1, 17, "RTS", "RoCE v2", "ibv_rc_pingpong"),
		qpRow("rxe0", 0, 18, "RESET", "RoCE v1", "ib_core"),
		qpRow("rxe1", 2, 1, "ERR", "RoCE v2", "rping"),
	}
	for _, tc := range []struct {
		words   []string
		command bool
		want    string // the lqpns that match
	}{
		{nil, true, "17 18 1"},
		{[]string{"rxe0"}, true, "17 18"},
		{[]string{"rxe0/1"}, true, "17"},
		{[]string{"rxe0/-"}, true, "18"},
		{[]string{"link", "rxe1/2"}, true, "1"},
		{[]string{"link=rxe1/2"}, true, "1"},
		{[]string{"dev", "rxe0"}, true, "17 18"},
		{[]string{"dev=rxe0,rxe1", "state", "rts,err"}, true, "17 1"},
		{[]string{"lqpn", "0-17"}, true, "17 1"},
		{[]string{"lqpn=1,18"}, true, "18 1"},
		{[]string{"type", "v1"}, true, "18"},
		{[]string{"comm", "PING"}, true, "17 1"},
		{[]string{"rxe0", "state=RTS"}, true, "17"},
		{[]string{"state=RTS", "rxe0"}, true, "17"},
		// The dashboard's words: plain substrings of the text.
		{[]string{"pingpong"}, false, "17"},
		{[]string{"rxe", "state", "ERR"}, false, "1"},
		{[]string{"ib_core"}, false, "18"},
		{[]string{"zzz"}, false, ""},
	} {
		parse := ParseFilterWords
		if tc.command {
			parse = ParseCommandWords
		}
		flt, err := parse("test-qp", tc.words)
		if err != nil {
			t.Errorf("%v: %v", tc.words, err)
			continue
		}
		var got []string
		for _, r := range rows {
			if flt.Match(r) {
				f, _ := r.Get("lqpn")
				got = append(got, f.Text)
			}
		}
		if diff := cmp.Diff(tc.want, strings.Join(got, " ")); diff != "" {
			t.Errorf("%v (command %v): -want +got\n%s", tc.words, tc.command, diff)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		words []string
		err   string
	}{
		{"nope", nil, `unknown kind of rows "nope"`},
		{"test-qp", []string{"state"}, "state needs a value (state VALUE or state=VALUE)"},
		{"test-qp", []string{"state="}, "state needs a value"},
		{"test-qp", []string{"state", ","}, "state needs a value"},
		{"test-qp", []string{"state=BOGUS"}, `test-qp state "BOGUS" can never match; it is one of RESET, INIT, RTS, ERR`},
		{"test-qp", []string{"state", "RTS,bogus"}, `"bogus" can never match`},
		{"test-qp", []string{"type=v3"}, `it is one of v1, v2`},
		{"test-qp", []string{"lqpn", "x"}, `lqpn takes numbers and ranges like 5 or 0-6,17, not "x"`},
		{"test-qp", []string{"lqpn", "9-3"}, `not "9-3"`},
		{"test-qp", []string{"lqpn", "1-"}, `not "1-"`},
		{"test-qp", []string{"pid=1"}, `test-qp has no filter "pid"; its filters are link, dev, lqpn, state, type, comm`},
		{"test-qp", []string{"rxe0", "rxe1"}, `"rxe0" and "rxe1" cannot both stand alone: one DEV or DEV/PORT may; the filters of test-qp are link, dev, lqpn, state, type, comm`},
		{"test-qp", []string{"link", "/1"}, `name a device`},
		{"test-qp", []string{"link", "rxe0/x"}, `a port is a number counting from 1`},
		{"test-qp", []string{"link", "rxe0/0"}, `a port is a number counting from 1`},
		{"test-qp", []string{"dev", "rxe0/1"}, `a device name has no /`},
		{"test-dev", []string{"rxe0/1"}, `a device name has no /`},
		{"test-none", []string{"rxe0"}, `"rxe0" is not a filter of test-none; its filters are pid`},
	} {
		_, err := ParseCommandWords(tc.kind, tc.words)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s %v: error %v, want %q", tc.kind, tc.words, err, tc.err)
		}
	}
}

func TestFiltersHelpers(t *testing.T) {
	flt, err := ParseCommandWords("test-qp", []string{"rxe0/1", "dev=rxe1,rxe0", "state", "RTS"})
	if err != nil {
		t.Fatal(err)
	}
	if got := flt.String(); got != "link=rxe0/1 dev=rxe1,rxe0 state=RTS" {
		t.Errorf("String() = %q", got)
	}
	if diff := cmp.Diff([]string{"rxe0", "rxe1"}, flt.Devices()); diff != "" {
		t.Errorf("Devices: %s", diff)
	}
	if f, ok := flt.Get("dev"); !ok || !cmp.Equal(f.Words(), []string{"rxe1", "rxe0"}) {
		t.Errorf("Get(dev) = %+v %v", f, ok)
	}
	sub, _ := ParseFilterWords("test-qp", []string{"ping"})
	if got := sub.String(); got != `"ping"` {
		t.Errorf("substring String() = %q", got)
	}
	if r := qpRow("rxe0", 1, 3, "RTS", "", "x"); r.ID() != "rxe0/RTS" || (Row{}).ID() != "" {
		t.Errorf("ID() = %q", r.ID())
	}
}

func TestFiltersPorts(t *testing.T) {
	Register(Schema{Kind: "test-ports", Keys: []Key{{Name: "link", Field: "dev", Match: MatchLink}, {Name: "dev", Match: MatchDevice}}, Bare: "link"})
	fs, err := ParseCommandWords("test-ports", []string{"link", "rxe0/1,rxe0/999,rxe1,rxe1/-,rxe0/1", "dev", "rxe2"})
	if err != nil {
		t.Fatal(err)
	}
	want := []PortRef{{"rxe0", 1}, {"rxe0", 999}}
	if diff := cmp.Diff(want, fs.Ports()); diff != "" {
		t.Errorf("Ports (-want +got):\n%s", diff)
	}
}
