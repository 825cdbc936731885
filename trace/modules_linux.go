package trace

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// btfDir lists vmlinux and every loaded module that has BTF: a module's
// entry appears as it loads (kernel/bpf/btf.c, btf_module_notify), so a
// new one is the moment its functions can be traced.
const btfDir = "/sys/kernel/btf"

// btfModules are the names in btfDir now.
func btfModules() map[string]bool {
	ents, _ := os.ReadDir(btfDir)
	m := make(map[string]bool, len(ents))
	for _, e := range ents {
		m[e.Name()] = true
	}
	return m
}

// watchRetries is how many ticks after a module appears its programs are
// tried again: a module's BTF is published while it is still coming up.
const watchRetries = 3

// watchModules looks at btfDir every interval and, when a module
// appeared, attaches the programs left out for a missing function,
// telling Options.Notify. Reading one directory a second is its whole
// cost; it ends when nothing is missing any more, or at Close.
func (t *Tracer) watchModules(interval time.Duration) {
	defer close(t.watchDone)
	seen := btfModules()
	var added []string
	retries := 0
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-t.stopWatch:
			return
		case <-tick.C:
		}
		now := btfModules()
		var fresh []string
		for name := range now {
			if !seen[name] {
				fresh = append(fresh, name)
			}
		}
		seen = now
		if len(fresh) > 0 {
			slices.Sort(fresh)
			added, retries = fresh, watchRetries
		}
		if retries == 0 {
			continue
		}
		retries--
		n, done := t.retryMissing()
		if n > 0 && t.opts.Notify != nil {
			t.opts.Notify(fmt.Sprintf("%s loaded: %d programs attached", strings.Join(added, ", "), n))
		}
		if done {
			return
		}
	}
}

// retryMissing tries again the programs left out for a missing function
// and says how many attached, and whether none is missing any more.
func (t *Tracer) retryMissing() (attached int, done bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var again []attempt
	kept := t.left[:0]
	for _, l := range t.left {
		if l.missing {
			again = append(again, l.attempt)
		} else {
			kept = append(kept, l)
		}
	}
	t.left = kept
	n := t.attachEach(again)
	for _, l := range t.left {
		if l.missing {
			return n, false
		}
	}
	return n, true
}
