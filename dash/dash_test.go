package dash

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// An unknown theme is the caller's mistake, said before anything opens.
func TestRunRefusesUnknownTheme(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	err := Run(context.Background(), Options{Theme: "no-such-theme"})
	if !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), "no-such-theme") {
		t.Errorf("Run with an unknown theme: %v, want ErrBadOption naming it", err)
	}
}

func TestUTF8Locale(t *testing.T) {
	for _, tc := range []struct {
		all, ctype, lang string
		want             bool
	}{
		{"", "", "en_US.UTF-8", true},
		{"", "C.utf8", "", true},
		{"C", "", "en_US.UTF-8", false}, // LC_ALL wins
		{"", "", "", false},
	} {
		t.Setenv("LC_ALL", tc.all)
		t.Setenv("LC_CTYPE", tc.ctype)
		t.Setenv("LANG", tc.lang)
		if got := utf8Locale(); got != tc.want {
			t.Errorf("LC_ALL=%q LC_CTYPE=%q LANG=%q: utf8Locale %v, want %v", tc.all, tc.ctype, tc.lang, got, tc.want)
		}
	}
}
