package rec

import (
	"fmt"
	"strings"
	"time"
)

// ParseAt reads a time to replay from, for a recording from from to
// to: "start", "end", a duration before the end ("-3m"), a clock time
// on the recording's first day ("09:24:05", in local time) or a whole
// one ("2026-12-01T09:24:05", local, or with a zone as in RFC 3339).
func ParseAt(s string, from, to time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "start":
		return from, nil
	case s == "end":
		return to, nil
	case strings.HasPrefix(s, "-"):
		d, err := time.ParseDuration(s[1:])
		if err != nil {
			return time.Time{}, fmt.Errorf("%q: a duration before the end is like -3m or -90s", s)
		}
		return to.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05", s, time.Local); err == nil {
		return t, nil
	}
	if c, err := time.ParseInLocation("15:04:05", s, time.Local); err == nil {
		f := from.In(time.Local)
		return time.Date(f.Year(), f.Month(), f.Day(), c.Hour(), c.Minute(), c.Second(), 0, time.Local), nil
	}
	return time.Time{}, fmt.Errorf("%q: give start, end, -3m, 09:24:05 or 2026-12-01T09:24:05", s)
}
