package view

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends the row as one JSON object, its keys in the row's
// order (iproute2's, for the rows of `rdma -j resource show`).
func (r Row) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	for _, f := range r {
		if f.NoJSON {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = AppendJSONString(b, f.Key)
		b = append(b, ':')
		b = appendJSONValue(b, f.Value)
	}
	return append(b, '}')
}

// MarshalJSON makes a Row a JSON value of another row (the ports of a
// device), written as AppendJSON writes it.
func (r Row) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// appendJSONValue writes the common types itself, JSON already written
// (json.RawMessage: a traced modify's attributes) as it is, and any
// other value (float64, *int, []int, nested structs and rows) as
// encoding/json does.
func appendJSONValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case json.RawMessage:
		return append(b, v...)
	case uint64:
		return strconv.AppendUint(b, v, 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case bool:
		return strconv.AppendBool(b, v)
	case string:
		return AppendJSONString(b, v)
	case []string:
		if v == nil {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, s)
		}
		return append(b, ']')
	}
	j, err := json.Marshal(v)
	if err != nil {
		// Only a value no row holds (a channel, a NaN) gets here.
		return append(b, "null"...)
	}
	return append(b, j...)
}

// AppendJSONString appends s as a JSON string. It escapes like iproute2's
// jsonw_puts (lib/json_writer.c) and, unlike it, also escapes the other
// control characters and writes each byte that is not part of valid UTF-8
// as \ufffd, as encoding/json does: a comm the kernel cut in the middle
// of a character (TASK_COMM_LEN) must still make valid JSON.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+n]...)
			}
			i += n
			continue
		}
		i++
		switch c {
		case '\t':
			b = append(b, `\t`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\f':
			b = append(b, `\f`...)
		case '\b':
			b = append(b, `\b`...)
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		default:
			if c < 0x20 {
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
}
