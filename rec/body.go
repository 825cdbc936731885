package rec

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
)

// bodyDecoder decodes an object's body (the JSON json.Marshal wrote of
// inspect's type T) without encoding/json's reflection per value: a
// seek decodes every object of a keyframe, and at 10,000 QPs
// encoding/json was most of a cold seek's time. It reads the bodies the
// recorder writes: one flat JSON object of the type's fields, by their
// exact names, with integers, plain strings, arrays of integers and
// null. Anything else (an escape in a string, a driver attribute, an
// address, a field of another name) goes to encoding/json whole, so the
// result is always encoding/json's (TestBodyDecoderMatchesJSON,
// FuzzBodyDecoder).
type bodyDecoder[T any] struct {
	fields map[string]bodyField // nil: every body goes to encoding/json
}

// bodyField is where a JSON key goes in T: the field's index path (an
// embedded struct's fields are promoted) and how its value is read.
type bodyField struct {
	index []int
	kind  reflect.Kind // Uint*, Int*, String, Array (of integers); Invalid: null only
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func newBodyDecoder[T any]() bodyDecoder[T] {
	fields := map[string]bodyField{}
	if !planFields(reflect.TypeFor[T](), nil, fields) {
		return bodyDecoder[T]{}
	}
	return bodyDecoder[T]{fields: fields}
}

// planFields adds t's fields to fields as encoding/json names them,
// and reports false when t has what this decoder does not follow (tags,
// names promoted twice, a type that decodes itself).
func planFields(t reflect.Type, index []int, fields map[string]bodyField) bool {
	if reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textType) {
		return false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if _, tagged := f.Tag.Lookup("json"); tagged {
			return false
		}
		at := append(index[:len(index):len(index)], i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			if !planFields(f.Type, at, fields) {
				return false
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if _, dup := fields[f.Name]; dup {
			return false
		}
		fields[f.Name] = bodyField{index: at, kind: valueKind(f.Type)}
	}
	return true
}

// valueKind is how a field's value is read: Invalid for a type this
// decoder takes only null for (encoding/json then leaves it zero).
func valueKind(t reflect.Type) reflect.Kind {
	if reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textType) {
		return reflect.Invalid
	}
	switch k := t.Kind(); k {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint,
		reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int, reflect.String:
		return k
	case reflect.Array:
		if e := t.Elem().Kind(); e >= reflect.Int && e <= reflect.Uint64 && valueKind(t.Elem()) == e {
			return k
		}
	}
	return reflect.Invalid
}

// decode decodes b into a new T.
func (d bodyDecoder[T]) decode(b []byte) (*T, error) {
	v := new(T)
	if d.fields != nil && d.fast(b, reflect.ValueOf(v).Elem()) {
		return v, nil
	}
	*v = *new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil, err
	}
	return v, nil
}

// fast decodes b into v, and reports false when b is not of the plain
// form it reads (v is then partly written).
func (d bodyDecoder[T]) fast(b []byte, v reflect.Value) bool {
	s := jsonScan{b: b}
	if !s.byte('{') {
		return false
	}
	if s.byte('}') {
		return s.end()
	}
	for {
		key, ok := s.str()
		if !ok || !s.byte(':') {
			return false
		}
		f, ok := d.fields[string(key)]
		if !ok || !s.value(f, v) {
			return false
		}
		if s.byte('}') {
			return s.end()
		}
		if !s.byte(',') {
			return false
		}
	}
}

// jsonScan reads b from i on.
type jsonScan struct {
	b []byte
	i int
}

func (s *jsonScan) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// byte consumes c after any space.
func (s *jsonScan) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// end reports whether only space is left.
func (s *jsonScan) end() bool {
	s.space()
	return s.i == len(s.b)
}

// str reads a string of printable ASCII without escapes (what else
// encoding/json reads differently, invalid UTF-8 or an escape, is not
// taken). The bytes are b's.
func (s *jsonScan) str() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c < 0x20 || c >= 0x7f || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// number reads an integer as JSON writes it (an optional minus, no
// leading zero, no fraction or exponent) up to 20 digits: its sign and
// magnitude.
func (s *jsonScan) number() (neg bool, u uint64, ok bool) {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '-' {
		neg = true
		s.i++
	}
	start := s.i
	for ; s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9'; s.i++ {
		d := uint64(s.b[s.i] - '0')
		if u > (math.MaxUint64-d)/10 {
			return false, 0, false
		}
		u = u*10 + d
	}
	n := s.i - start
	if n == 0 || (n > 1 && s.b[start] == '0') {
		return false, 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return false, 0, false
	}
	return neg, u, true
}

func (s *jsonScan) null() bool {
	s.space()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// value reads field f's value into v. null leaves a field as it is,
// as encoding/json does for these kinds (v starts zero, and a field
// given twice is given a value that is not null only through
// encoding/json).
func (s *jsonScan) value(f bodyField, v reflect.Value) bool {
	if s.null() {
		return true
	}
	switch f.kind {
	case reflect.Invalid:
		return false
	case reflect.String:
		str, ok := s.str()
		if ok {
			v.FieldByIndex(f.index).SetString(string(str))
		}
		return ok
	case reflect.Array:
		a := v.FieldByIndex(f.index)
		if !s.byte('[') {
			return false
		}
		for i := range a.Len() {
			if (i > 0 && !s.byte(',')) || !s.integer(a.Index(i)) {
				return false
			}
		}
		return s.byte(']')
	}
	return s.integer(v.FieldByIndex(f.index))
}

// integer reads an integer into x, refusing one that does not fit.
func (s *jsonScan) integer(x reflect.Value) bool {
	neg, u, ok := s.number()
	if !ok {
		return false
	}
	bits := x.Type().Bits()
	if x.CanUint() {
		if neg || u>>(bits-1)>>1 != 0 {
			return false
		}
		x.SetUint(u)
		return true
	}
	limit := uint64(1) << (bits - 1) // -limit fits, +limit does not
	if u > limit || (!neg && u == limit) {
		return false
	}
	i := int64(u)
	if neg {
		i = -i
	}
	x.SetInt(i)
	return true
}
