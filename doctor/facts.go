package doctor

import (
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/verbs"
)

// Facts are everything the checks look at. Gather fills them on the live
// system; tests build them from sysfsmon's fixture trees and hand-made
// netlink objects. A part that was not gathered is nil (or empty), and a
// part that failed keeps its error: the checks that need it say so.
type Facts struct {
	// Live is true when the facts describe the running system, so
	// libibverbs, netlink and the probe speak of the same devices as
	// sysfs; false for a recorded tree (--sysfs).
	Live bool

	Host       *sysfsmon.Host
	Devices    []sysfsmon.Device
	DevicesErr error
	IRQs       *sysfsmon.IRQSnapshot
	IRQsErr    error

	// Netlink is one RDMA netlink snapshot (every object of every
	// process, as `rdma resource show` sees them), taken before the
	// probe so its own objects are not in it.
	Netlink    *inspect.Snapshot
	NetlinkErr error

	// Verbs is what libibverbs says; nil when not asked.
	Verbs *VerbsFacts

	// Probes are the memory registration and QP creation runs, one per
	// device libibverbs lists; NoProbe says why there are none when
	// they were not run on purpose.
	Probes  []Probe
	NoProbe string
	// MRSize is the size the probe registers and the memlock check
	// measures the limit against.
	MRSize int

	// Holders are the descriptors open on /dev/infiniband nodes;
	// HoldersUnreadable counts processes whose fds could not be read.
	Holders           []sysfsmon.FDHolder
	HoldersUnreadable int
	HoldersErr        error

	// Owners are the processes holding the Netlink snapshot's objects,
	// with their pinned bytes and RLIMIT_MEMLOCK (owners.Read).
	Owners []owners.Process
	// Growing are the kinds of each process that only grew while doctor
	// watched for Watched (--watch); Watched is 0 when it did not.
	Growing []inspect.Growth
	Watched time.Duration
}

// VerbsFacts is libibverbs' view: ibv_get_device_list(3), and for each
// device it lists, what opening and querying it gave.
type VerbsFacts struct {
	Devices []verbs.DeviceInfo
	ListErr error
	Open    map[string]VerbsDevice
}

// VerbsDevice is one device opened through libibverbs.
type VerbsDevice struct {
	Attr           *verbs.DeviceAttr // ibv_query_device(3); nil when it failed
	NumCompVectors int               // struct ibv_context.num_comp_vectors
	Err            error             // ibv_open_device or ibv_query_device failed
}

// listed reports whether libibverbs lists the device.
func (v *VerbsFacts) listed(name string) bool {
	for _, d := range v.Devices {
		if d.Name == name {
			return true
		}
	}
	return false
}

// Probe is one real memory registration and QP creation on a device:
// ibv_open_device, ibv_alloc_pd, ibv_reg_mr, ibv_create_cq, ibv_create_qp
// and ibv_modify_qp to INIT, each a Step; the first failure ends it.
type Probe struct {
	Dev    string
	Port   int
	MRSize int
	Steps  []ProbeStep
	// What the calls returned, when they succeeded.
	LKey, RKey uint32
	QPN        uint32
	QPState    string
}

// ProbeStep is one verbs call of a probe.
type ProbeStep struct {
	Call   string // "ibv_reg_mr"
	Detail string // what it was asked and what it returned
	Err    error  // nil when it worked; errors.Is(Err, syscall.ENOMEM) works
	Took   time.Duration
}

// failed returns the failed step, or nil.
func (p *Probe) failed() *ProbeStep {
	for i := range p.Steps {
		if p.Steps[i].Err != nil {
			return &p.Steps[i]
		}
	}
	return nil
}
