package trace

import (
	"sync/atomic"
	"testing"
)

// TestStoreMax: the loss count only rises, whichever store comes last.
func TestStoreMax(t *testing.T) {
	var v atomic.Uint64
	for _, n := range []uint64{3, 7, 5, 0, 9} {
		storeMax(&v, n)
	}
	if got := v.Load(); got != 9 {
		t.Errorf("after 3, 7, 5, 0, 9: %d, want 9", got)
	}
}
