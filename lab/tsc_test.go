package lab

import (
	"bufio"
	"strings"
	"testing"
)

func TestParseTSCkHz(t *testing.T) {
	for _, tc := range []struct {
		name, cpuinfo string
		want          int
	}{
		{"known", "processor\t: 0\ncpu MHz\t\t: 2096.027\nflags\t\t: fpu tsc constant_tsc nonstop_tsc tsc_known_freq\nprocessor\t: 1\ncpu MHz\t\t: 1.0\n", 2096027},
		{"measured by the host, not known", "processor\t: 0\ncpu MHz\t\t: 2096.027\nflags\t\t: fpu tsc constant_tsc\n", 0},
		{"frequency scaling", "processor\t: 0\ncpu MHz\t\t: 800.000\nflags\t\t: tsc tsc_known_freq\n", 0},
		{"empty", "", 0},
	} {
		if got := parseTSCkHz(bufio.NewScanner(strings.NewReader(tc.cpuinfo))); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}
