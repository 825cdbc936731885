package learn

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CheckKind says what a Check looks at.
type CheckKind int

// The kinds of Check.
const (
	checkObject     CheckKind = iota // expect NAME [KEY=VALUE...]: the object exists, with these fields
	checkGone                        // expect NAME gone: no object has this name
	checkCompletion                  // expect CQ completion [opcode= status= data= qp= count=]
	checkCount                       // expect object KIND count=N
	checkRefusal                     // expect refusal [mentions=TEXT]: the last command was refused
	checkEvent                       // expect event TYPE [on=NAME]: the device raised this async event
	checkDoctor                      // expect doctor CHECK [verdict=V]: a doctor run in the shell reported CHECK
)

// Check is one `expect` line of a step.
type Check struct {
	Text    string // as written
	Line    int    // in its file
	Kind    CheckKind
	Subject string // the object's or CQ's name, or the kind counted
	Attrs   []Attr
}

// Attr is one KEY=VALUE (or KEY>=N) of a check.
type Attr struct {
	Key, Op, Value string
}

func (a Attr) String() string { return a.Key + a.Op + quoteIfSpaced(a.Value) }

// The keys each kind of check takes; numeric ones also take >=.
var (
	objectKeys = map[string]bool{"kind": false, "state": false, "type": false, "parent": false, "device": false, "port": true, "cqe": true, "length": true, "access": false, "send_cq": false, "recv_cq": false,
		"verdict": false, "evidence": false}
	completionKeys = map[string]bool{"opcode": false, "status": false, "data": false, "qp": false, "count": true}
	countKeys      = map[string]bool{"count": true, "owner": false}
	refusalKeys    = map[string]bool{"mentions": false}
	eventKeys      = map[string]bool{"on": false}
	doctorKeys     = map[string]bool{"verdict": false}
)

// parseCheck reads one check line:
//
//	expect NAME [KEY=VALUE...]        (kind state type parent device port cqe length access send_cq recv_cq verdict evidence)
//	expect NAME gone
//	expect CQ completion [opcode=OP] [status=S] [data=TEXT] [qp=QP] [count=N]
//	expect object KIND count=N [owner=COMM]
//	expect refusal [mentions=TEXT]
//	expect event TYPE [on=NAME]
//	expect doctor CHECK [verdict=V]
//
// Values with spaces are quoted ("…"); numeric keys take >= as well as =;
// a name compared whole may list alternatives: state=RTR|RTS.
func parseCheck(line string) (Check, error) {
	words, err := splitWords(line)
	if err != nil {
		return Check{}, err
	}
	c := Check{Text: strings.TrimSpace(line)}
	if len(words) < 2 || words[0] != "expect" {
		return c, fmt.Errorf("a check is `expect WHAT ...`, not %q", c.Text)
	}
	rest, keys := words[2:], objectKeys
	switch c.Subject = words[1]; {
	case c.Subject == "refusal":
		c.Kind, keys = checkRefusal, refusalKeys
	case c.Subject == "event":
		if len(rest) == 0 || strings.Contains(rest[0], "=") {
			return c, fmt.Errorf("%q: `expect event TYPE` names the event (CQ_ERR, QP_FATAL, ...)", c.Text)
		}
		c.Kind, c.Subject, rest, keys = checkEvent, strings.ToUpper(rest[0]), rest[1:], eventKeys
	case c.Subject == "doctor":
		if len(rest) == 0 || strings.Contains(rest[0], "=") {
			return c, fmt.Errorf("%q: `expect doctor CHECK` names the check (modules, gids, memlock, ...: `doctor` in the shell lists them)", c.Text)
		}
		c.Kind, c.Subject, rest, keys = checkDoctor, rest[0], rest[1:], doctorKeys
	case c.Subject == "object":
		if len(rest) == 0 || strings.Contains(rest[0], "=") {
			return c, fmt.Errorf("%q: `expect object KIND count=N` names the kind (ctx pd cq qp mr ah ch)", c.Text)
		}
		c.Kind, c.Subject, rest, keys = checkCount, rest[0], rest[1:], countKeys
	case len(rest) > 0 && rest[0] == "completion":
		c.Kind, rest, keys = checkCompletion, rest[1:], completionKeys
	case len(rest) > 0 && rest[0] == "gone":
		c.Kind, rest = checkGone, rest[1:]
		if len(rest) > 0 {
			return c, fmt.Errorf("%q: `expect NAME gone` takes nothing after gone", c.Text)
		}
	}
	for _, w := range rest {
		a, err := parseAttr(w, keys)
		if err != nil {
			return c, fmt.Errorf("%q: %w", c.Text, err)
		}
		c.Attrs = append(c.Attrs, a)
	}
	if c.Kind == checkCount && (len(c.Attrs) == 0 || c.Attrs[0].Key != "count" || len(c.Attrs) > 1 && c.Attrs[1].Key != "owner" || len(c.Attrs) > 2) {
		return c, fmt.Errorf("%q: `expect object KIND` takes count=N, then optionally owner=COMM", c.Text)
	}
	return c, nil
}

func parseAttr(w string, keys map[string]bool) (Attr, error) {
	i := strings.IndexAny(w, "=>")
	if i <= 0 {
		return Attr{}, fmt.Errorf("%q is not KEY=VALUE", w)
	}
	a := Attr{Key: w[:i], Op: "="}
	v := w[i+1:]
	if w[i] == '>' {
		if !strings.HasPrefix(v, "=") {
			return Attr{}, fmt.Errorf("%q: the comparisons are = and >=", w)
		}
		a.Op, v = ">=", v[1:]
	}
	a.Value = v
	numeric, ok := keys[a.Key]
	switch {
	case !ok:
		return a, fmt.Errorf("no key %q here (keys: %s)", a.Key, keyList(keys))
	case numeric:
		if _, err := strconv.ParseUint(v, 10, 64); err != nil {
			return a, fmt.Errorf("%s wants a number, not %q", a.Key, v)
		}
	case a.Op == ">=":
		return a, fmt.Errorf("%s is not a number: compare it with =", a.Key)
	}
	return a, nil
}

func keyList(keys map[string]bool) string {
	var out []string
	for k := range keys {
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

// splitWords cuts a line at blanks; "…" keeps blanks in a word (and \"
// is a quote inside one).
func splitWords(line string) ([]string, error) {
	var words []string
	var b strings.Builder
	in, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\\' && i+1 < len(line):
			i++
			b.WriteByte(line[i])
		case c == '"':
			quoted, in = !quoted, true
		case !quoted && (c == ' ' || c == '\t'):
			if in {
				words, in = append(words, b.String()), false
				b.Reset()
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("%q: a quote is not closed", strings.TrimSpace(line))
	}
	if in {
		words = append(words, b.String())
	}
	return words, nil
}

func quoteIfSpaced(s string) string {
	if strings.ContainsAny(s, " \t\"") || s == "" {
		return strconv.Quote(s)
	}
	return s
}
