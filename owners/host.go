package owners

import (
	"math"
	"strconv"

	"github.com/verbscope/verbscope/view"
)

// ByHost puts every process in one group: the host's locked memory
// (`verbscope res owners by host`). It is no step of the dashboard's
// cycle, whose heading says it (Host).
const ByHost By = "host"

// hostKey is the key of the one group ByHost makes.
const hostKey = "all"

// Host is the memory the host's RDMA processes pin, two ways: the bytes
// of their MRs as netlink reports them, and what the kernel counts as
// pinned for them (VmPin, mm->pinned_vm, which ib_umem_get charges page
// by page), beside the host's RAM.
type Host struct {
	// Processes counts the live processes holding RDMA objects.
	Processes int `json:"processes"`
	// Pinned is the sum of their MR lengths; VmPin the sum of their
	// VmPin. On rxe VmPin is Pinned rounded up to whole pages per MR; a
	// NIC's driver pins its queues' buffers too, and an on-demand-paging
	// MR pins nothing.
	Pinned uint64 `json:"pinned_bytes"`
	VmPin  uint64 `json:"vm_pin"`
	// MemTotal is /proc/meminfo's MemTotal; 0 when unknown.
	MemTotal uint64 `json:"mem_total"`
}

// HostOf sums ps (from Read); memTotal is the host's RAM in bytes.
func HostOf(ps []Process, memTotal uint64) Host {
	h := Host{MemTotal: memTotal}
	for i := range ps {
		p := &ps[i]
		h.Pinned += p.Pinned
		if !p.Gone {
			h.Processes++
			h.VmPin += p.VmPin
		}
	}
	return h
}

// memShare is the share of the host's RAM the kernel has pinned for
// them; 0 when MemTotal is unknown.
func (h Host) memShare() float64 {
	if h.MemTotal == 0 {
		return 0
	}
	return float64(h.VmPin) / float64(h.MemTotal)
}

// Row is the host as `verbscope res owners by host` prints it: the
// processes, their MR bytes, the kernel's pinned bytes, the host's RAM
// and the share of it pinned (a fraction in -j).
func (h Host) Row() view.Row {
	share := h.memShare()
	return view.Row{view.IDField(string(ByHost)), str(string(ByHost), hostKey),
		num("processes", uint64(h.Processes)), num("pinned", h.Pinned), num("vmpin", h.VmPin), num("memtotal", h.MemTotal),
		view.Field{Key: "mem-pinned", Text: strconv.FormatFloat(share*100, 'f', 1, 64) + "%", Value: math.Round(share*1e4) / 1e4}}
}
