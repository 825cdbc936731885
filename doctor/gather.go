package doctor

import (
	"context"
	"slices"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/verbs"
	"github.com/verbscope/verbscope/view"
)

// DefaultMRSize is what the probe registers unless told otherwise: enough
// to trip the usual 8 MiB (or 64 KiB) RLIMIT_MEMLOCK, small enough for
// any machine.
const DefaultMRSize = 64 << 20

// Options say what Gather collects.
type Options struct {
	// Needs are the parts the selected checks read (NeedsOf).
	Needs Needs
	// MRSize is the probe's registration size; 0 is DefaultMRSize.
	MRSize int
	// NoProbe, when set, skips the probe and is the reason shown.
	NoProbe string
	// Progress, when set, is told before each slow step.
	Progress func(msg string)
	// Watch, when above 0, observes every process's objects for that
	// long before the checks (the growth check): a snapshot every
	// WatchEvery (0: a second), fed to a Tracker whose growth window is
	// Watch.
	Watch, WatchEvery time.Duration
}

// Gather collects the facts from fs and, when live (fs reads this
// host's own /sys and /proc), from libibverbs, RDMA netlink and procfs,
// and runs the probe. It never fails: each part keeps its own error.
// The netlink snapshot is taken after libibverbs' contexts are closed and
// before the probe, so doctor's own objects are in neither.
func Gather(fs *sysfsmon.FS, live bool, o Options) *Facts {
	if o.MRSize <= 0 {
		o.MRSize = DefaultMRSize
	}
	progress := o.Progress
	if progress == nil {
		progress = func(string) {}
	}
	n := o.Needs
	f := &Facts{Live: live, MRSize: o.MRSize, NoProbe: o.NoProbe}
	if n&needHost != 0 {
		f.Host = fs.Host()
	}
	if n&(needDevices|needProbe) != 0 {
		f.Devices, f.DevicesErr = fs.Devices()
	}
	if n&needIRQs != 0 {
		f.IRQs, f.IRQsErr = fs.IRQs()
	}
	if !live {
		return f
	}
	if n&(needVerbs|needProbe) != 0 {
		f.Verbs = gatherVerbs()
	}
	if n&needGrowth != 0 && o.Watch > 0 {
		progress("watching every process's objects for " + o.Watch.String())
		f.Netlink, f.Growing, f.NetlinkErr = watchGrowth(o.Watch, o.WatchEvery)
		f.Watched = o.Watch
	}
	if n&(needNetlink|needProcs|needOwners) != 0 && f.Netlink == nil && f.NetlinkErr == nil {
		f.Netlink, f.NetlinkErr = snapshot()
	}
	if n&needOwners != 0 && f.Netlink != nil {
		f.Owners = owners.Read(f.Netlink, fs.ProcessOwner)
	}
	if n&needProcs != 0 && f.Netlink != nil {
		progress("reading which processes hold /dev/infiniband open")
		f.Holders, f.HoldersUnreadable, f.HoldersErr = fs.DevHolders()
	}
	if n&needProbe != 0 && f.NoProbe == "" && f.Verbs != nil {
		for _, d := range f.Verbs.Devices {
			port := probePort(f.Devices, d.Name)
			progress("registering " + view.Bytes(f.MRSize).String() + " and creating a QP on " + d.Name)
			f.Probes = append(f.Probes, runProbe(d.Name, port, f.MRSize))
		}
	}
	return f
}

// gatherVerbs lists the devices through libibverbs, opens and queries
// each, and closes it again.
func gatherVerbs() *VerbsFacts {
	v := &VerbsFacts{Open: map[string]VerbsDevice{}}
	v.Devices, v.ListErr = verbs.Devices()
	for _, d := range v.Devices {
		c, err := verbs.Open(d.Name)
		if err != nil {
			v.Open[d.Name] = VerbsDevice{Err: err}
			continue
		}
		vd := VerbsDevice{}
		if a, err := c.QueryDevice(); err != nil {
			vd.Err = err
		} else {
			vd.Attr = &a
		}
		vd.NumCompVectors, _ = c.NumCompVectors()
		if err := c.Close(); err != nil && vd.Err == nil {
			vd.Err = err
		}
		v.Open[d.Name] = vd
	}
	return v
}

// snapshotTimeout bounds the netlink dump (10,000 QPs take well under a
// second, even in the emulated lab).
const snapshotTimeout = 30 * time.Second

// snapshot dumps every object of every process over RDMA netlink.
func snapshot() (*inspect.Snapshot, error) {
	c, err := inspect.Dial()
	if err != nil {
		return nil, err
	}
	defer c.Close()
	// A kernel that stops answering must not hang the checklist.
	ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
	defer cancel()
	return c.Snapshot(ctx, inspect.SnapshotOptions{NoCounters: true})
}

// watchGrowth takes a snapshot every interval for d and returns the last
// one with the kinds that only grew over the whole time (inspect.Growth,
// the window being d).
func watchGrowth(d, every time.Duration) (*inspect.Snapshot, []inspect.Growth, error) {
	if every <= 0 {
		every = time.Second
	}
	c, err := inspect.Dial()
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	tr := inspect.NewTracker(inspect.TrackerConfig{GrowthWindow: d})
	end := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		s, err := c.Snapshot(ctx, inspect.SnapshotOptions{NoCounters: true})
		cancel()
		if err != nil {
			return nil, nil, err
		}
		u := tr.Update(s)
		if !time.Now().Before(end) {
			return s, u.Growing, nil
		}
		time.Sleep(min(every, time.Until(end)))
	}
}

// probePort is the device's first ACTIVE port, else port 1.
func probePort(devs []sysfsmon.Device, name string) int {
	i := slices.IndexFunc(devs, func(d sysfsmon.Device) bool { return d.Name == name })
	if i < 0 {
		return 1
	}
	for _, p := range devs[i].Ports {
		if p.State.Up() {
			return p.Port
		}
	}
	return 1
}
