package export

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/pace/pacetest"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/sysfsmon"
)

// fakeFeeds are a live.Host's feeds, filled by hand.
type fakeFeeds struct {
	frames  chan inspect.Frame
	updates chan sysfsmon.Update
	kernel  chan sysfsmon.KernelLine
}

func (f *fakeFeeds) Frames() <-chan inspect.Frame       { return f.frames }
func (f *fakeFeeds) Updates() <-chan sysfsmon.Update    { return f.updates }
func (f *fakeFeeds) Kernel() <-chan sysfsmon.KernelLine { return f.kernel }
func (f *fakeFeeds) Owners() owners.Lookup              { return nil }

// TestFollowFeedsApart: Follow takes each feed as it comes: kernel lines
// and a sysfs reading are counted while no frame has come (a netlink
// dump held up), the frame after them; each reading is handed on to
// Also; once the kernel log's feed closes its counts are no longer
// served, and Follow returns when every feed closed.
func TestFollowFeedsApart(t *testing.T) {
	c := NewCollector(Options{})
	h := &fakeFeeds{frames: make(chan inspect.Frame), updates: make(chan sysfsmon.Update), kernel: make(chan sysfsmon.KernelLine)}
	var frames, updates int
	done := make(chan struct{})
	go func() {
		c.follow(h, followAlso{Frame: func(inspect.Frame) { frames++ }, Sys: func(sysfsmon.Update) { updates++ }})
		close(done)
	}()
	kernelSeries := func() int { return testutil.CollectAndCount(c, "verbscope_kernel_log_messages_total") }

	h.kernel <- sysfsmon.KernelLine{Driver: "rdma_rxe", Level: 6}
	h.kernel <- sysfsmon.KernelLine{Driver: "rdma_rxe", Level: 3}
	waitFor(t, "the kernel lines counted with no frame", func() bool { return kernelSeries() == 2 })
	h.updates <- sysfsFixture(t, "rxe0")
	waitFor(t, "the sysfs reading with no frame", func() bool { return testutil.CollectAndCount(c, "verbscope_device_info") == 1 })
	select {
	case <-c.Ready():
		t.Fatal("Ready before any frame came")
	default:
	}
	h.frames <- inspect.Frame{Snapshot: recorded(t, "idle")}
	select {
	case <-c.Ready():
	case <-time.After(pacetest.WaitLimit):
		t.Fatal("not Ready after a frame and a sysfs reading")
	}

	close(h.kernel)
	waitFor(t, "the kernel log's counts to go with its feed", func() bool { return kernelSeries() == 0 })
	close(h.frames)
	close(h.updates)
	select {
	case <-done:
	case <-time.After(pacetest.WaitLimit):
		t.Fatal("Follow did not return once every feed closed")
	}
	if frames != 1 || updates != 1 {
		t.Errorf("handed on %d frames and %d sysfs readings, want 1 and 1", frames, updates)
	}
}
