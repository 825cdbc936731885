package verbs

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The leak tracker. The garbage collector cannot destroy verbs objects
// (libibverbs needs children destroyed before parents, and cleanup order
// is unspecified), so a wrapper that becomes unreachable before Close is
// only reported, with the stack that created it. Tests turn tracking on
// and fail on any report.
var (
	trackLeaks atomic.Bool
	leakMu     sync.Mutex
	leaks      []Leak
)

// Leak is a verbs object whose Go wrapper the garbage collector found
// unreachable while it was still open.
type Leak struct {
	Kind    string // "QP", "CQ", ...
	Label   string // e.g. "QP 17 (RC)"
	Created string // the creating call stack, one frame per line
}

// TrackLeaks turns the leak tracker on or off for objects created after
// the call. It costs a stack capture per object created.
func TrackLeaks(on bool) { trackLeaks.Store(on) }

// watch arranges for wrapper's collection to be reported if o is still
// open then.
func watch[T any](wrapper *T, o *object) {
	if !trackLeaks.Load() {
		return
	}
	runtime.AddCleanup(wrapper, func(o *object) {
		o.mu.RLock()
		open := !o.closed
		o.mu.RUnlock()
		if open {
			leakMu.Lock()
			leaks = append(leaks, Leak{Kind: o.kind, Label: o.name, Created: frames(o.created)})
			leakMu.Unlock()
		}
	}, o)
}

func frames(pcs []uintptr) string {
	var b strings.Builder
	fs := runtime.CallersFrames(pcs)
	for {
		f, more := fs.Next()
		if f.Function != "" {
			fmt.Fprintf(&b, "\t%s\n\t\t%s:%d\n", f.Function, f.File, f.Line)
		}
		if !more {
			break
		}
	}
	return b.String()
}

// CheckLeaks runs the garbage collector, waits briefly for cleanups, and
// returns an error listing every leaked object since the last call (and
// forgets them). Call it at the end of a test binary (TestMain).
func CheckLeaks() error {
	for i := 0; i < 3; i++ {
		runtime.GC()
		time.Sleep(20 * time.Millisecond)
	}
	leakMu.Lock()
	found := leaks
	leaks = nil
	leakMu.Unlock()
	if len(found) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "verbs: %d object(s) were dropped without Close:\n", len(found))
	for _, l := range found {
		fmt.Fprintf(&b, "%s, created at\n%s", l.Label, l.Created)
	}
	return errors.New(b.String())
}
