package oracle

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// Devinfo is the parsed output of `ibv_devinfo -v`.
type Devinfo struct {
	Devices []DevinfoDevice
}

// DevinfoDevice is one "hca_id:" block. Fields maps each "key:" to its
// value as printed; multi-line values (the capability flag names listed
// under device_cap_flags) are in Lists.
type DevinfoDevice struct {
	HCAID  string
	Fields map[string]string
	Lists  map[string][]string
	Ports  []DevinfoPort
}

// DevinfoPort is one "port:" block of a device.
type DevinfoPort struct {
	Port   int
	Fields map[string]string
	Lists  map[string][]string
	GIDs   []DevinfoGID
}

// DevinfoGID is one "GID[  i]:" line: the address and its type.
type DevinfoGID struct {
	Index int
	GID   string
	Type  string // "RoCE v2", "RoCE v1", "IB"; empty when not printed
}

// ParseDevinfo parses `ibv_devinfo` or `ibv_devinfo -v` output.
func ParseDevinfo(out string) (*Devinfo, error) {
	d := &Devinfo{}
	var dev *DevinfoDevice
	var port *DevinfoPort
	var lastKey string
	sc := bufio.NewScanner(strings.NewReader(out))
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		key, val, hasColon := strings.Cut(line, ":")
		val = strings.TrimSpace(val)
		// A line without "key:" continues the previous key (flag names).
		// GIDs and addresses contain colons, so a key is a word without
		// spaces directly before the first colon, followed by whitespace.
		isKey := hasColon && key != "" && !strings.ContainsAny(key, " ") &&
			(len(line) == len(key)+1 || line[len(key)+1] == '\t' || line[len(key)+1] == ' ')
		if strings.HasPrefix(key, "GID[") {
			isKey = true
		}
		if !isKey {
			if dev == nil || lastKey == "" {
				return nil, fmt.Errorf("oracle: ibv_devinfo line %d: %q outside a field", n, line)
			}
			lists := dev.Lists
			if port != nil {
				lists = port.Lists
			}
			lists[lastKey] = append(lists[lastKey], line)
			continue
		}
		switch {
		case key == "hca_id":
			d.Devices = append(d.Devices, DevinfoDevice{HCAID: val, Fields: map[string]string{}, Lists: map[string][]string{}})
			dev, port, lastKey = &d.Devices[len(d.Devices)-1], nil, ""
		case dev == nil:
			return nil, fmt.Errorf("oracle: ibv_devinfo line %d: %q before any hca_id", n, line)
		case key == "port":
			p, err := strconv.Atoi(val)
			if err != nil {
				return nil, fmt.Errorf("oracle: ibv_devinfo line %d: port %q: %w", n, val, err)
			}
			dev.Ports = append(dev.Ports, DevinfoPort{Port: p, Fields: map[string]string{}, Lists: map[string][]string{}})
			port, lastKey = &dev.Ports[len(dev.Ports)-1], ""
		case strings.HasPrefix(key, "GID["):
			if port == nil {
				return nil, fmt.Errorf("oracle: ibv_devinfo line %d: GID outside a port", n)
			}
			g, err := parseGIDLine(line)
			if err != nil {
				return nil, fmt.Errorf("oracle: ibv_devinfo line %d: %w", n, err)
			}
			port.GIDs = append(port.GIDs, g)
			lastKey = ""
		default:
			if port != nil {
				port.Fields[key] = val
			} else {
				dev.Fields[key] = val
			}
			lastKey = key
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return d, nil
}

// parseGIDLine reads "GID[  1]:		::ffff:10.0.0.1, RoCE v2".
func parseGIDLine(line string) (DevinfoGID, error) {
	rest := strings.TrimPrefix(line, "GID[")
	idx, rest, ok := strings.Cut(rest, "]:")
	if !ok {
		return DevinfoGID{}, fmt.Errorf("malformed GID line %q", line)
	}
	i, err := strconv.Atoi(strings.TrimSpace(idx))
	if err != nil {
		return DevinfoGID{}, fmt.Errorf("GID index %q: %w", idx, err)
	}
	gid, typ, _ := strings.Cut(strings.TrimSpace(rest), ",")
	return DevinfoGID{Index: i, GID: strings.TrimSpace(gid), Type: strings.TrimSpace(typ)}, nil
}

// Value splits a field like "PORT_ACTIVE (4)" or "4096 (5)" into its text
// and the number in parentheses; fields without one give num -1.
func Value(field string) (text string, num int) {
	text, paren, ok := strings.Cut(field, " (")
	if !ok || !strings.HasSuffix(paren, ")") {
		return field, -1
	}
	n, err := strconv.Atoi(strings.TrimSuffix(paren, ")"))
	if err != nil {
		return field, -1
	}
	return text, n
}
