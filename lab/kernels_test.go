package lab

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestLookupKernel(t *testing.T) {
	for _, tc := range []struct {
		name, want, err string
	}{
		{"", "6.1", ""},
		{"6.1", "6.1", ""},
		{"6.12", "6.12", ""},
		{"5.10", "", `no guest kernel "5.10": the lab boots 6.1 or 6.12`},
	} {
		k, err := lookupKernel(tc.name)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("LookupKernel(%q) error %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || k.Name != tc.want {
			t.Errorf("LookupKernel(%q) = %q, %v; want %q", tc.name, k.Name, err, tc.want)
		}
	}
}

// Cache.Kernel wins over $LAB_KERNEL, which wins over the default.
func TestCacheGuestKernel(t *testing.T) {
	for _, tc := range []struct{ field, env, want string }{
		{"", "", "6.1"},
		{"", "6.12", "6.12"},
		{"6.1", "6.12", "6.1"},
	} {
		t.Setenv(KernelEnv, tc.env)
		k, err := (&Cache{Kernel: tc.field}).guestKernel()
		if err != nil || k.Name != tc.want {
			t.Errorf("Kernel %q, $%s %q: got %q, %v; want %q", tc.field, KernelEnv, tc.env, k.Name, err, tc.want)
		}
	}
}

// Each kernel's .deb glob and series test keep 6.1's and 6.12's packages
// apart in the one deb folder.
func TestKernelSeries(t *testing.T) {
	files := []string{
		"linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb",
		"linux-image-6.12.117+deb13-amd64_6.12.117-1_amd64.deb",
	}
	for i, k := range guestKernels {
		for j, f := range files {
			ok, err := filepath.Match(k.debGlob(), f)
			if err != nil || ok != (i == j) {
				t.Errorf("%s: glob %s matches %s: %v (%v), want %v", k.Name, k.debGlob(), f, ok, err, i == j)
			}
			pkg, _, _ := strings.Cut(f, "_")
			if got := k.ofSeries(pkg); got != (i == j) {
				t.Errorf("%s: ofSeries(%s) = %v, want %v", k.Name, pkg, got, i == j)
			}
		}
		if !k.ofSeries(k.Package) {
			t.Errorf("%s: its own package %s is not of its series", k.Name, k.Package)
		}
	}
}
