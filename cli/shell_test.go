package cli

import (
	"os"
	"testing"
)

func TestEnvInt(t *testing.T) {
	for _, tc := range []struct {
		val     string
		set     bool
		want    int
		wantErr bool
	}{
		{set: false, want: 7},
		{val: "", set: true, want: 7},
		{val: "3", set: true, want: 3},
		{val: "3x", set: true, wantErr: true},
		{val: " 3", set: true, wantErr: true},
	} {
		if tc.set {
			t.Setenv("VS_TEST_INT", tc.val)
		} else {
			os.Unsetenv("VS_TEST_INT")
		}
		got, err := envInt("VS_TEST_INT", 7)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("envInt with %q (set %v): %d, %v; want %d, error %v", tc.val, tc.set, got, err, tc.want, tc.wantErr)
		}
	}
}
