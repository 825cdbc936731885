package view

import "strings"

// Field is one item of a line.
type Field struct {
	// Key is the JSON key and the filter name: "lqpn", "ifname", "comm".
	Key string
	// Text is the value as the text view prints it ("17", "[ib_core]",
	// "0x273"); TextKey, when set, replaces Key in the text view ("link",
	// "dev").
	Text    string
	TextKey string
	// Value is the JSON value: uint64, int64, string, bool, []string, or
	// anything else encoding/json writes (float64, *int, nested rows).
	Value any
	// Num is the value numeric filters compare, when IsNum.
	Num   uint64
	IsNum bool
	// Bare prints Text without a key ("0: rxe0: " in the summary).
	Bare bool
	// NoText and NoJSON leave the field out of a view; a field with
	// both is only there to be filtered on (src-port of a cm_id).
	NoText, NoJSON bool
}

// Row is one line: one object, its fields in the order the view prints
// them.
type Row []Field

// IDKey is the key of a row's identity field: "rxe0", "rxe0/1",
// "rxe0/1/3" (device/port/GID index), "123" (an IRQ), "rxe0/1/counters/
// port_xmit_data". It is in neither view (NoText, NoJSON), so a front end
// can keep a selection on the same object across refreshes.
const IDKey = "key"

// ID returns the row's identity (its IDKey field), or "" without one.
func (r Row) ID() string {
	f, _ := r.Get(IDKey)
	return f.Text
}

// IDField returns the identity field of a row.
func IDField(id string) Field {
	return Field{Key: IDKey, Text: id, Value: id, NoText: true, NoJSON: true}
}

// Get returns the field with the given key.
func (r Row) Get(key string) (Field, bool) {
	for _, f := range r {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// Text renders the row as `rdma resource show` prints a line ("key value"
// pairs, Bare fields without their key), without the trailing blank
// iproute2 leaves. Values are Printable: a comm cannot reach the terminal.
func (r Row) Text() string {
	var b strings.Builder
	for _, f := range r {
		if f.NoText {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if !f.Bare {
			k := f.TextKey
			if k == "" {
				k = f.Key
			}
			b.WriteString(k)
			b.WriteByte(' ')
		}
		b.WriteString(f.Display())
	}
	return b.String()
}
