package live

import (
	"context"

	"github.com/verbscope/verbscope/sysfsmon"
)

// followKernel hands the kernel log's RDMA lines to Kernel until ctx
// ends or the log cannot be read (failed hears why), then closes it. A
// consumer that falls KernelBuffer lines behind holds the reader up
// rather than lose lines; the kernel's ring keeps what is written
// meanwhile.
func (h *Host) followKernel(ctx context.Context, fsys *sysfsmon.FS, failed func(error)) {
	defer h.wg.Done()
	defer close(h.kernel)
	err := fsys.FollowKernelLog(ctx, func(l sysfsmon.KernelLine) {
		select {
		case h.kernel <- l:
		case <-ctx.Done():
		}
	})
	if err != nil && ctx.Err() == nil && failed != nil {
		failed(err)
	}
}
