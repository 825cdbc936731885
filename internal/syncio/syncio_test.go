package syncio

import (
	"strings"
	"sync"
	"testing"
)

// TestBufferWholeWrites: lines written by many goroutines at once come
// out whole, each once.
func TestBufferWholeWrites(t *testing.T) {
	b := NewBuffer()
	w := NewWriter(b)
	var wg sync.WaitGroup
	line := strings.Repeat("x", 100) + "\n"
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				w.Write([]byte(line))
			}
		}()
	}
	wg.Wait()
	lines := strings.SplitAfter(b.String(), "\n")
	if len(lines) != 801 || lines[800] != "" {
		t.Fatalf("%d lines, want 800", len(lines)-1)
	}
	for i, l := range lines[:800] {
		if l != line {
			t.Fatalf("line %d is %q: writes interleaved", i, l)
		}
	}
}
