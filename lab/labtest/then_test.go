package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestThen: the next step's output comes after a heading, whatever it
// printed on stdout or stderr, and its failure is returned; an
// interrupt ends it and what it started (its process group).
func TestThen(t *testing.T) {
	s := startThen(context.Background(), "echo out; echo err >&2; exit 3")
	var b strings.Builder
	err := s.finish(&b)
	if err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("finish: %v, want exit status 3", err)
	}
	if got := b.String(); !strings.HasPrefix(got, "labtest: echo out;") || !strings.HasSuffix(got, "out\nerr\n") {
		t.Errorf("output:\n%s", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	s = startThen(ctx, "sleep 600 & wait")
	start := time.Now()
	cancel()
	if err := s.finish(&b); err == nil {
		t.Error("an interrupted step returned no error")
	}
	if d := time.Since(start); d >= thenStopLimit {
		t.Errorf("the interrupted step took %v to end: the SIGTERM did not reach its group", d)
	}
}
