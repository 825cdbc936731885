package oracle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// RdmaObject is one object of `rdma -j resource show ...` output: its keys
// in the order printed and the values, numbers kept as json.Number.
type RdmaObject struct {
	Keys   []string
	Values map[string]any
}

// ParseRdmaJSON parses the JSON array iproute2's rdma tool prints with -j
// (one line, "[{...},{...}]"), keeping each object's key order, which a
// map would lose.
func ParseRdmaJSON(b []byte) ([]RdmaObject, error) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimSpace(b)))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, fmt.Errorf("rdma JSON: want an array, got %v (%v)", tok, err)
	}
	var out []RdmaObject
	for dec.More() {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, fmt.Errorf("rdma JSON: object %d: want an object, got %v (%v)", len(out), tok, err)
		}
		o := RdmaObject{Values: map[string]any{}}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("rdma JSON: object %d: %w", len(out), err)
			}
			key, ok := tok.(string)
			if !ok {
				return nil, fmt.Errorf("rdma JSON: object %d: key %v", len(out), tok)
			}
			var v any
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("rdma JSON: object %d, %q: %w", len(out), key, err)
			}
			if _, dup := o.Values[key]; dup {
				return nil, fmt.Errorf("rdma JSON: object %d: key %q twice", len(out), key)
			}
			o.Keys = append(o.Keys, key)
			o.Values[key] = v
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("rdma JSON: object %d: %w", len(out), err)
		}
		out = append(out, o)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("rdma JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("rdma JSON: data after the array")
	}
	return out, nil
}

// added names the keys verbscope prints that iproute2 does not, each with
// the key it must follow: tgid, the process of the thread the kernel
// records as pid.
var added = map[string]string{"tgid": "pid"}

// WithoutAdded returns objs as iproute2 would print them: without the
// added keys, after checking that each follows its key.
func WithoutAdded(objs []RdmaObject) ([]RdmaObject, error) {
	out := make([]RdmaObject, len(objs))
	for i, o := range objs {
		c := RdmaObject{Values: map[string]any{}}
		for j, k := range o.Keys {
			if after, ok := added[k]; ok {
				if j == 0 || o.Keys[j-1] != after {
					return nil, fmt.Errorf("object %d: %q is not right after %q: keys %v", i, k, after, o.Keys)
				}
				continue
			}
			c.Keys = append(c.Keys, k)
			c.Values[k] = o.Values[k]
		}
		out[i] = c
	}
	return out, nil
}

// psnKeys are the QP fields that move with traffic between two reads.
var psnKeys = []string{"sq-psn", "rq-psn"}

// CompareRdmaJSON compares objects read by the code under test (got)
// with rdma's output taken just before and just after: the same objects
// in the same order, the same keys in the same order, and the same
// values. A PSN that moved between the two oracle reads must lie between
// them (24-bit PSNs only move forward, and wrap); every other value must
// equal both reads, and if the two reads differ elsewhere the system
// changed under the comparison, which is reported as Unstable.
//
// got may carry the added keys, each in its place; nothing else is
// ignored.
func CompareRdmaJSON(before, got, after []RdmaObject) error {
	got, err := WithoutAdded(got)
	if err != nil {
		return err
	}
	if len(before) != len(after) {
		return &Unstable{fmt.Sprintf("rdma listed %d objects, then %d", len(before), len(after))}
	}
	if len(got) != len(before) {
		return fmt.Errorf("%d objects, rdma lists %d:\n got %s\nwant %s", len(got), len(before), describe(got), describe(before))
	}
	var problems []string
	for i := range before {
		b, g, a := before[i], got[i], after[i]
		if strings.Join(b.Keys, ",") != strings.Join(a.Keys, ",") {
			return &Unstable{fmt.Sprintf("object %d changed keys between the rdma reads", i)}
		}
		if strings.Join(g.Keys, ",") != strings.Join(b.Keys, ",") {
			problems = append(problems, fmt.Sprintf("object %d keys %v, rdma: %v", i, g.Keys, b.Keys))
			continue
		}
		for _, k := range b.Keys {
			bv, gv, av := b.Values[k], g.Values[k], a.Values[k]
			if isPSN(k) && bv != av {
				if !psnBetween(bv, gv, av) {
					problems = append(problems, fmt.Sprintf("object %d %s %v is not between rdma's %v and %v", i, k, gv, bv, av))
				}
				continue
			}
			if !equalJSON(bv, av) {
				return &Unstable{fmt.Sprintf("object %d %s changed from %v to %v between the rdma reads", i, k, bv, av)}
			}
			if !equalJSON(gv, bv) {
				problems = append(problems, fmt.Sprintf("object %d %s: %v, rdma: %v", i, k, gv, bv))
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("differs from rdma -j:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// Unstable reports that the system changed while the comparison ran; the
// caller should try again.
type Unstable struct{ Why string }

func (u *Unstable) Error() string { return "unstable: " + u.Why }

// describe renders objects compactly for messages.
func describe(objs []RdmaObject) string {
	var parts []string
	for _, o := range objs {
		var kv []string
		for _, k := range o.Keys {
			kv = append(kv, fmt.Sprintf("%s=%v", k, o.Values[k]))
		}
		parts = append(parts, "{"+strings.Join(kv, " ")+"}")
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func isPSN(k string) bool { return k == psnKeys[0] || k == psnKeys[1] }

// psnBetween: going forward (mod 2^24) from lo, mid comes no later than hi.
func psnBetween(lo, mid, hi any) bool {
	l, ok1 := num(lo)
	m, ok2 := num(mid)
	h, ok3 := num(hi)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	const mask = 1<<24 - 1
	return (m-l)&mask <= (h-l)&mask
}

func num(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func equalJSON(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ab, bb)
}
