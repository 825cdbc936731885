package trace

import "testing"

func TestChargesMemlock(t *testing.T) {
	for _, tc := range []struct {
		release string
		want    bool
	}{
		{"6.1.0-28-amd64", false},
		{"5.11.0", false},
		{"5.10.0-33-amd64", true},
		{"4.18.0-553.el8_10.x86_64", true},
		{"5.4", true},
		{"5.15-rc1", false},
		{"3.10.0", true},
		{"10.0.1", false},
		{"", true},
		{"garbage", true},
	} {
		if got := chargesMemlock(tc.release); got != tc.want {
			t.Errorf("chargesMemlock(%q) = %v, want %v", tc.release, got, tc.want)
		}
	}
}
