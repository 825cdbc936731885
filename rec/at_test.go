package rec

import (
	"testing"
	"time"
)

func TestParseAt(t *testing.T) {
	from := time.Date(2026, 12, 1, 9, 0, 0, 0, time.Local)
	to := from.Add(time.Hour)
	for in, want := range map[string]time.Time{
		"":                     from,
		"start":                from,
		"end":                  to,
		"-3m":                  to.Add(-3 * time.Minute),
		"09:24:05":             time.Date(2026, 12, 1, 9, 24, 5, 0, time.Local),
		"2026-12-01T09:24:05":  time.Date(2026, 12, 1, 9, 24, 5, 0, time.Local),
		"2026-12-01T09:24:05Z": time.Date(2026, 12, 1, 9, 24, 5, 0, time.UTC),
	} {
		got, err := ParseAt(in, from, to)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseAt(%q) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-3 minutes", "25:00:00"} {
		if _, err := ParseAt(bad, from, to); err == nil {
			t.Errorf("ParseAt(%q) took it", bad)
		}
	}
}
