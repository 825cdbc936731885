package rec

import (
	"os"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

// HostHere is the host table of a recording made on this host, read
// every interval by verbscope version: its name, kernel, rdma-core and
// RDMA devices as fsys sees them. What cannot be read is left empty: a
// recording is still worth making without it.
func HostHere(fsys *sysfsmon.FS, interval time.Duration, version string) Host {
	host, _ := os.Hostname()
	h := fsys.Host()
	devs, _ := fsys.DeviceNames()
	return Host{Hostname: host, Kernel: h.KernelRelease, RDMACore: h.RDMACore.Version, Devices: devs, Interval: interval, Version: version}
}
