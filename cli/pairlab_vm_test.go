//go:build vm

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verbscope/verbscope/lab"
)

// pairLab opens the lab the two-host tests share: dir is the guests'
// /mnt/host, bin the verbscope they run; out and log collect what the
// VMs print and what the lab says.
func pairLab(t *testing.T, dir, bin string, timeout time.Duration) (l *lab.Lab, out, log *bytes.Buffer) {
	t.Helper()
	cache := os.Getenv("VERBSCOPE_CACHE")
	if cache == "" {
		cache = filepath.Join("..", ".cache", "lab")
	}
	out, log = &bytes.Buffer{}, &bytes.Buffer{}
	l, err := lab.New(context.Background(), &lab.Cache{Dir: cache}, lab.Options{
		Share: dir, Bin: []string{bin}, Out: out, Log: log, Timeout: timeout,
	})
	if err != nil {
		t.Fatalf("the lab cannot start: %v", err)
	}
	return l, out, log
}
