package lab

import (
	"context"
	"strings"
	"testing"
)

// Without $VERBSCOPE_CACHE, $XDG_CACHE_HOME or $HOME there is no cache
// folder, and none is made up under /tmp.
func TestCacheNoFallback(t *testing.T) {
	for _, v := range []string{"VERBSCOPE_CACHE", "XDG_CACHE_HOME", "HOME"} {
		t.Setenv(v, "")
	}
	if d := DefaultCacheDir(); d != "" {
		t.Fatalf("DefaultCacheDir() = %q, want none", d)
	}
	_, err := (&Cache{Dir: DefaultCacheDir()}).prepare(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no cache folder") {
		t.Fatalf("Prepare without a folder: %v, want no cache folder", err)
	}
}
