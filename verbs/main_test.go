package verbs

import (
	"fmt"
	"os"
	"testing"
)

// TestMain fails the run when any verbs object was dropped without Close.
func TestMain(m *testing.M) {
	TrackLeaks(true)
	code := m.Run()
	if err := CheckLeaks(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
