package view

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Filters in the words of iproute2 (rdma-resource(8), rdma-link(8)):
// "state RTS,ERR", "pid=1234", "lqpn 0-6,17", "link rxe0/1". One parser
// serves every front end: the CLI's view commands (ParseCommandWords) and
// the dashboard's "/" filter (ParseFilterWords). Each kind of row declares
// its filter words in a Schema; the packages that build the rows register
// them (inspect for `res`, sysfsmon for devices, ports, gids, irqs and
// counters).

// Match says how a filter word compares a row's field.
type Match int

// The ways a filter compares.
const (
	// MatchWord: the field's text is one of the listed words, ignoring
	// case ("state RTS,ERR").
	MatchWord Match = iota
	// MatchNumber: the field's number is one of the listed numbers or
	// inclusive ranges ("lqpn 0-6,17").
	MatchNumber
	// MatchDevice: a word match on a device name; the front end checks
	// that the device exists (Filters.Devices).
	MatchDevice
	// MatchLink: DEV, DEV/PORT or DEV/- (an object on no port yet),
	// against the row's device field and its "port" field.
	MatchLink
	// MatchSubstring: the field's text contains the value, ignoring case
	// ("name err").
	MatchSubstring
	// MatchSuffix: the field's text ends with one of the listed words,
	// ignoring case ("type v2" matches "RoCE v2").
	MatchSuffix
)

// Key is one filter word of a kind of row.
type Key struct {
	// Name is the word: "state", "lqpn", "link".
	Name string
	// Field is the row's field it compares; "" means Name. MatchLink
	// compares Field as the device and the "port" field as the port.
	Field string
	Match Match
	// Values are the words that can exist ("RESET", "INIT", ...): any
	// other value is refused, listing these. Nil takes any value.
	Values []string
}

// Schema is the filter words of one kind of row.
type Schema struct {
	// Kind names the rows: "qp", "ports".
	Kind string
	Keys []Key
	// Bare is the Key a word without a key stands for on a command line
	// ("link" makes `res qp rxe0/1` mean `res qp link rxe0/1`); "" takes
	// no such word.
	Bare string
}

var schemas = map[string]*Schema{}

// Register makes a kind's filter words known to ParseFilterWords and
// ParseCommandWords. The packages that build rows call it in init; a
// second schema for the same kind replaces the first.
func Register(s Schema) { schemas[s.Kind] = &s }

// Lookup returns the registered schema of a kind.
func Lookup(kind string) (*Schema, bool) {
	s, ok := schemas[kind]
	return s, ok
}

// KeyNames returns the kind's filter words, in the schema's order.
func (s *Schema) KeyNames() []string {
	names := make([]string, len(s.Keys))
	for i, k := range s.Keys {
		names[i] = k.Name
	}
	return names
}

func (s *Schema) key(name string) *Key {
	for i := range s.Keys {
		if s.Keys[i].Name == name {
			return &s.Keys[i]
		}
	}
	return nil
}

// Filter is one condition: a row matches when its field has one of the
// listed values. A row without the field does not match, as in iproute2
// (a kernel QP has no pid). Key "" is a plain substring of the row's
// text (the dashboard's bare words).
type Filter struct {
	Key, Value string
	key        *Key
	ranges     [][2]uint64
	words      []string
}

// Filters is a conjunction of filters.
type Filters []Filter

// ParseFilterWords parses the words of a filter line for rows of a kind,
// as the dashboard's "/" takes them: "state=ERR pid 4242 type=RC" and
// plain substrings of a row's text ("pingpong").
func ParseFilterWords(kind string, words []string) (Filters, error) {
	return parseWords(kind, words, false)
}

// ParseCommandWords parses a view command's words (the flags already
// taken out): "key value", "key=value", and one bare word standing for
// the schema's Bare key ("rxe0", "rxe0/1").
func ParseCommandWords(kind string, words []string) (Filters, error) {
	return parseWords(kind, words, true)
}

func parseWords(kind string, words []string, command bool) (Filters, error) {
	s, ok := schemas[kind]
	if !ok {
		return nil, fmt.Errorf("view: filter: unknown kind of rows %q", kind)
	}
	var fs Filters
	bare := "" // the word that stood alone
	for i := 0; i < len(words); i++ {
		name, value, hasEq := strings.Cut(words[i], "=")
		k := s.key(name)
		switch {
		case k != nil && !hasEq:
			if i+1 >= len(words) {
				return nil, fmt.Errorf("view: filter: %s needs a value (%s VALUE or %s=VALUE)", name, name, name)
			}
			i++
			value = words[i]
		case k != nil:
		case hasEq:
			return nil, fmt.Errorf("view: filter: %s has no filter %q; its filters are %s", kind, name, strings.Join(s.KeyNames(), ", "))
		case !command:
			fs = append(fs, Filter{Value: words[i]})
			continue
		case s.Bare == "":
			return nil, fmt.Errorf("view: filter: %q is not a filter of %s; its filters are %s", name, kind, strings.Join(s.KeyNames(), ", "))
		case bare != "":
			return nil, fmt.Errorf("view: filter: %q and %q cannot both stand alone: one %s may; the filters of %s are %s",
				bare, name, describeBare(s), kind, strings.Join(s.KeyNames(), ", "))
		default:
			bare, k, value = words[i], s.key(s.Bare), words[i]
		}
		f, err := k.parse(kind, value)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

func describeBare(s *Schema) string {
	if k := s.key(s.Bare); k != nil && k.Match == MatchLink {
		return "DEV or DEV/PORT"
	}
	return "DEV"
}

// ParseFilter parses one key and its value for rows of a kind.
func ParseFilter(kind, key, value string) (Filter, error) {
	s, ok := schemas[kind]
	if !ok {
		return Filter{}, fmt.Errorf("view: filter: unknown kind of rows %q", kind)
	}
	k := s.key(key)
	if k == nil {
		return Filter{}, fmt.Errorf("view: filter: %s has no filter %q; its filters are %s", kind, key, strings.Join(s.KeyNames(), ", "))
	}
	return k.parse(kind, value)
}

func (k *Key) parse(kind, value string) (Filter, error) {
	f := Filter{Key: k.Name, Value: value, key: k}
	for item := range strings.SplitSeq(value, ",") {
		if item == "" {
			continue
		}
		switch k.Match {
		case MatchNumber:
			rg, err := parseRange(item)
			if err != nil {
				return Filter{}, fmt.Errorf("view: filter: %s takes numbers and ranges like 5 or 0-6,17, not %q", k.Name, item)
			}
			f.ranges = append(f.ranges, rg)
		case MatchLink:
			dev, port, withPort := strings.Cut(item, "/")
			if dev == "" {
				return Filter{}, fmt.Errorf("view: filter: %s %q: name a device: DEV, DEV/PORT or DEV/-", k.Name, item)
			}
			if withPort && port != "-" && port != "" {
				if n, err := strconv.ParseUint(port, 10, 32); err != nil || n == 0 {
					return Filter{}, fmt.Errorf("view: filter: %s %q: a port is a number counting from 1 (DEV/PORT), or - for none", k.Name, item)
				}
			}
			f.words = append(f.words, item)
		case MatchDevice:
			if strings.Contains(item, "/") {
				return Filter{}, fmt.Errorf("view: filter: %s %q: a device name has no /; for a port say link DEV/PORT", k.Name, item)
			}
			f.words = append(f.words, item)
		default:
			if k.Values != nil && !slices.ContainsFunc(k.Values, func(v string) bool { return strings.EqualFold(v, item) }) {
				return Filter{}, fmt.Errorf("view: filter: %s %s %q can never match; it is one of %s", kind, k.Name, item, strings.Join(k.Values, ", "))
			}
			f.words = append(f.words, item)
		}
	}
	if len(f.ranges) == 0 && len(f.words) == 0 {
		return Filter{}, fmt.Errorf("view: filter: %s needs a value", k.Name)
	}
	return f, nil
}

func parseRange(item string) ([2]uint64, error) {
	lo, hi, isRange := strings.Cut(item, "-")
	a, err := strconv.ParseUint(lo, 10, 64)
	if err != nil {
		return [2]uint64{}, err
	}
	b := a
	if isRange {
		if b, err = strconv.ParseUint(hi, 10, 64); err != nil {
			return [2]uint64{}, err
		}
	}
	if b < a {
		return [2]uint64{}, fmt.Errorf("%d-%d runs backwards", a, b)
	}
	return [2]uint64{a, b}, nil
}

// String gives the filters as they would be typed: "state=RTS link=rxe0/1".
func (fs Filters) String() string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		if f.Key == "" {
			parts[i] = strconv.Quote(f.Value)
		} else {
			parts[i] = f.Key + "=" + f.Value
		}
	}
	return strings.Join(parts, " ")
}

// Devices returns the device names the filters name (dev and link keys),
// so a front end can refuse a device that does not exist.
func (fs Filters) Devices() []string {
	var out []string
	for _, f := range fs {
		if f.key == nil || (f.key.Match != MatchDevice && f.key.Match != MatchLink) {
			continue
		}
		for _, w := range f.words {
			dev, _, _ := strings.Cut(w, "/")
			if !slices.Contains(out, dev) {
				out = append(out, dev)
			}
		}
	}
	return out
}

// PortRef is a port a link filter names: DEV/PORT.
type PortRef struct {
	Dev  string
	Port uint32
}

// Ports returns the ports the link filters name (DEV/PORT; not DEV or
// DEV/-), so a front end can refuse a port that does not exist, as it
// does a device (Devices).
func (fs Filters) Ports() []PortRef {
	var out []PortRef
	for _, f := range fs {
		if f.key == nil || f.key.Match != MatchLink {
			continue
		}
		for _, w := range f.words {
			dev, port, _ := strings.Cut(w, "/")
			if n, err := strconv.ParseUint(port, 10, 32); err == nil && !slices.Contains(out, PortRef{dev, uint32(n)}) {
				out = append(out, PortRef{dev, uint32(n)})
			}
		}
	}
	return out
}

// Get returns the first filter with the given key.
func (fs Filters) Get(key string) (Filter, bool) {
	for _, f := range fs {
		if f.Key == key {
			return f, true
		}
	}
	return Filter{}, false
}

// Words returns the filter's values, split at commas.
func (f Filter) Words() []string {
	if f.ranges == nil {
		return f.words
	}
	return strings.Split(f.Value, ",")
}

// Match reports whether the row passes every filter.
func (fs Filters) Match(r Row) bool {
	for i := range fs {
		if !fs[i].match(r) {
			return false
		}
	}
	return true
}

// match reports whether the row passes the filter.
func (f Filter) match(r Row) bool {
	if f.key == nil {
		return f.matchText(r)
	}
	field := f.key.Field
	if field == "" {
		field = f.key.Name
	}
	fld, ok := r.Get(field)
	if !ok {
		return false
	}
	switch f.key.Match {
	case MatchLink:
		return f.matchLink(r, fld)
	case MatchNumber:
		// An SRQ lists its QPs as ranges ("20-35").
		if list, isList := fld.Value.([]string); isList {
			return f.matchList(list)
		}
		if !fld.IsNum {
			return false
		}
		for _, rg := range f.ranges {
			if fld.Num >= rg[0] && fld.Num <= rg[1] {
				return true
			}
		}
		return false
	}
	text := fieldText(fld)
	for _, w := range f.words {
		switch {
		case f.key.Match == MatchSubstring && strings.Contains(strings.ToLower(text), strings.ToLower(w)):
			return true
		case f.key.Match == MatchSuffix && strings.HasSuffix(strings.ToLower(text), strings.ToLower(w)):
			return true
		case strings.EqualFold(w, text):
			return true
		}
	}
	return false
}

// fieldText is what a word compares: the JSON string when there is one
// (the text view may decorate it: "[ib_core]"), else the text.
func fieldText(f Field) string {
	if s, ok := f.Value.(string); ok {
		return s
	}
	return f.Text
}

func (f Filter) matchText(r Row) bool {
	want := strings.ToLower(f.Value)
	for _, fld := range r {
		if !fld.NoText && strings.Contains(strings.ToLower(fld.Text), want) {
			return true
		}
	}
	return false
}

func (f Filter) matchLink(r Row, dev Field) bool {
	port, hasPort := r.Get("port")
	for _, w := range f.words {
		d, p, withPort := strings.Cut(w, "/")
		switch {
		case d != fieldText(dev):
		case !withPort || p == "":
			return true
		case p == "-" && !hasPort:
			return true
		case hasPort && p == port.Text:
			return true
		}
	}
	return false
}

func (f Filter) matchList(list []string) bool {
	for _, item := range list {
		rg, err := parseRange(item)
		if err != nil {
			continue
		}
		for _, want := range f.ranges {
			if want[0] <= rg[1] && rg[0] <= want[1] {
				return true
			}
		}
	}
	return false
}
