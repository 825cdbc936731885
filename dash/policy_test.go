package dash

import "testing"

// TestLimitFor: the soft heap limit is memoryLimit for a small live heap
// and twice a larger one, never at or under it (the collector would run
// back to back).
func TestLimitFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int64
	}{
		{0, memoryLimit},
		{10 << 20, memoryLimit},
		{20 << 20, memoryLimit},
		{32 << 20, 64 << 20},
		{400 << 20, 800 << 20},
	} {
		if got := limitFor(tc.live); got != tc.want || (tc.live > 0 && got <= int64(tc.live)) {
			t.Errorf("limitFor(%d MiB) = %d MiB, want %d MiB", tc.live>>20, got>>20, tc.want>>20)
		}
	}
}
