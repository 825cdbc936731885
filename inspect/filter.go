package inspect

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Filters in the style of rdma-resource(8): "pid 1234", "state RTS,ERR",
// "lqpn 0-6,17". The valid names per object kind are iproute2's
// (qp_valid_filters and friends in rdma/res.h) plus comm.

// filterKeys lists each kind's filter names; true marks numeric ones.
var filterKeys = map[string]map[string]bool{
	"qp": {"link": false, "lqpn": true, "rqpn": true, "pid": true, "sq-psn": true,
		"rq-psn": true, "type": false, "path-mig-state": false, "state": false, "pdn": true, "comm": false},
	"cq":  {"dev": false, "users": true, "poll-ctx": false, "pid": true, "cqn": true, "ctxn": true, "comm": false},
	"mr":  {"dev": false, "rkey": true, "lkey": true, "mrlen": true, "pid": true, "mrn": true, "pdn": true, "comm": false},
	"pd":  {"dev": false, "users": true, "pid": true, "ctxn": true, "pdn": true, "comm": false},
	"ctx": {"dev": false, "pid": true, "ctxn": true, "comm": false},
	"srq": {"dev": false, "pid": true, "srqn": true, "type": false, "pdn": true, "cqn": true,
		"lqpn": true, "comm": false},
	"cm_id": {"link": false, "lqpn": true, "qp-type": false, "state": false, "ps": false,
		"pid": true, "src-addr": false, "src-port": true, "dst-addr": false, "dst-port": true,
		"cm-idn": true, "comm": false},
}

// FilterKeys returns the filter names valid for an object kind ("qp",
// "cq", "mr", "pd", "ctx", "srq", "cm_id"), sorted.
func FilterKeys(kind string) []string {
	var keys []string
	for k := range filterKeys[kind] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Filter is one condition: the object matches if its field Key has one
// of the listed values (numbers and inclusive ranges for numeric fields,
// case-insensitive names otherwise). An object without the field does
// not match, as in iproute2 (a kernel QP has no pid).
type Filter struct {
	Key, Value string
	ranges     [][2]uint64
	words      []string
}

// Filters is a conjunction of filters.
type Filters []Filter

// ParseFilter parses one "key" "value" pair for an object kind.
func ParseFilter(kind, key, value string) (Filter, error) {
	keys, ok := filterKeys[kind]
	if !ok {
		return Filter{}, fmt.Errorf("inspect: filter: unknown object kind %q", kind)
	}
	numeric, ok := keys[key]
	if !ok {
		return Filter{}, fmt.Errorf("inspect: filter: %s has no filter %q (valid: %s)", kind, key, strings.Join(FilterKeys(kind), ", "))
	}
	if value == "" {
		return Filter{}, fmt.Errorf("inspect: filter: %s needs a value", key)
	}
	f := Filter{Key: key, Value: value}
	for _, item := range strings.Split(value, ",") {
		if item == "" {
			continue
		}
		if !numeric {
			f.words = append(f.words, item)
			continue
		}
		lo, hi, isRange := strings.Cut(item, "-")
		a, err1 := strconv.ParseUint(lo, 10, 64)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.ParseUint(hi, 10, 64)
		}
		if err1 != nil || err2 != nil || b < a {
			return Filter{}, fmt.Errorf("inspect: filter: %s takes numbers and ranges like 5 or 0-6,17, not %q", key, item)
		}
		f.ranges = append(f.ranges, [2]uint64{a, b})
	}
	if len(f.ranges) == 0 && len(f.words) == 0 {
		return Filter{}, fmt.Errorf("inspect: filter: %s needs a value", key)
	}
	return f, nil
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

func (f *Filter) match(r Row) bool {
	switch f.Key {
	case "dev":
		name, _ := r.Get("ifname")
		s, _ := name.Value.(string)
		return f.matchWord(s)
	case "link":
		return f.matchLink(r)
	case "lqpn":
		// An SRQ lists its QPs as ranges.
		if fld, ok := r.Get("lqpn"); ok {
			if list, isList := fld.Value.([]string); isList {
				return f.matchQPList(list)
			}
		}
	}
	fld, ok := r.Get(f.Key)
	if !ok {
		return false
	}
	if fld.IsNum && f.ranges != nil {
		for _, rg := range f.ranges {
			if fld.Num >= rg[0] && fld.Num <= rg[1] {
				return true
			}
		}
		return false
	}
	s, _ := fld.Value.(string)
	return f.matchWord(s)
}

func (f *Filter) matchWord(s string) bool {
	for _, w := range f.words {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

// matchLink accepts DEV, DEV/PORT and DEV/- (no port yet).
func (f *Filter) matchLink(r Row) bool {
	name, _ := r.Get("ifname")
	devName, _ := name.Value.(string)
	port, hasPort := r.Get("port")
	for _, w := range f.words {
		dev, p, withPort := strings.Cut(w, "/")
		switch {
		case dev != devName:
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

func (f *Filter) matchQPList(list []string) bool {
	for _, item := range list {
		lo, hi, _ := strings.Cut(item, "-")
		a, _ := strconv.ParseUint(lo, 10, 64)
		b := a
		if hi != "" {
			b, _ = strconv.ParseUint(hi, 10, 64)
		}
		for _, rg := range f.ranges {
			if rg[0] <= b && a <= rg[1] {
				return true
			}
		}
	}
	return false
}
