//go:build profile

package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"sync"
	"time"
)

// A build with -tags profile writes a CPU profile of the whole process
// to $VERBSCOPE_CPUPROFILE, from $VERBSCOPE_CPUPROFILE_AFTER (a
// duration, default 0: the start-up is in it) to the end of main: how
// docs/performance.md's figures were taken apart in the lab. The plain
// build does not link runtime/pprof, whose initializers every command
// would pay.
func init() {
	path := os.Getenv("VERBSCOPE_CPUPROFILE")
	if path == "" {
		return
	}
	after, err := time.ParseDuration(os.Getenv("VERBSCOPE_CPUPROFILE_AFTER"))
	if err != nil {
		after = 0
	}
	var mu sync.Mutex
	var f *os.File
	stop := make(chan struct{})
	go func() {
		select {
		case <-time.After(after):
		case <-stop:
			return
		}
		mu.Lock()
		defer mu.Unlock()
		var err error
		if f, err = os.Create(path); err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "verbscope: CPU profile %s: %v\n", path, err)
			f = nil
		}
	}()
	atExit = func() {
		close(stop)
		mu.Lock()
		defer mu.Unlock()
		if f != nil {
			pprof.StopCPUProfile()
			f.Close()
		}
	}
}
