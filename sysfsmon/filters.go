package sysfsmon

import (
	"slices"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// The filter words of the rows in rows.go, in the style of rdma-link(8)
// ("link rxe0/1", "dev rxe0"), with the values sysfs can show: port states
// are enum ib_port_state as ports/N/state names them
// (Documentation/ABI/stable/sysfs-class-infiniband), GID types those of
// gid_attrs/types.

// portStates are the names ports/N/state shows (enum ib_port_state,
// drivers/infiniband/core/sysfs.c state_show).
var portStates = rdma.PortStateNames()

func init() {
	dev := view.Key{Name: "dev", Match: view.MatchDevice}
	link := view.Key{Name: "link", Field: "dev", Match: view.MatchLink}
	port := view.Key{Name: "port", Match: view.MatchNumber}
	for _, s := range []view.Schema{
		{Kind: "devices", Bare: "dev", Keys: []view.Key{dev}},
		{Kind: "ports", Bare: "link", Keys: []view.Key{link, dev, port,
			{Name: "state", Match: view.MatchWord, Values: portStates},
			{Name: "netdev", Match: view.MatchWord}}},
		{Kind: "gids", Bare: "link", Keys: []view.Key{link, dev, port,
			{Name: "index", Match: view.MatchNumber},
			{Name: "type", Match: view.MatchSuffix, Values: []string{"v1", "v2", "IB/RoCE v1", "RoCE v2"}},
			{Name: "netdev", Match: view.MatchWord}}},
		{Kind: "counters", Bare: "link", Keys: []view.Key{link, dev, port,
			{Name: "group", Match: view.MatchWord, Values: []string{"counters", "hw_counters"}},
			{Name: "name", Match: view.MatchSubstring}}},
		{Kind: "irqs", Bare: "dev", Keys: []view.Key{dev}},
	} {
		view.Register(s)
	}
}

// CheckFilters returns the device names under class/infiniband,
// refusing (view.AbsentError) a device the filters name that is not
// among them, and a port (DEV/PORT) its device does not have.
func (f *FS) CheckFilters(flt view.Filters) ([]string, error) {
	names, err := f.DeviceNames()
	if err != nil {
		return nil, err
	}
	if err := flt.CheckDevices(names); err != nil {
		return nil, err
	}
	ports := map[string][]uint32{}
	for _, p := range flt.Ports() {
		if _, done := ports[p.Dev]; done {
			continue
		}
		d, err := f.Device(p.Dev)
		if err != nil {
			return nil, err
		}
		ports[p.Dev] = []uint32{}
		for _, dp := range d.Ports {
			ports[p.Dev] = append(ports[p.Dev], uint32(dp.Port))
		}
	}
	if err := flt.CheckPorts(ports); err != nil {
		return nil, err
	}
	return names, nil
}

// DevicesOf reads the devices the filters name (all when they name
// none), refusing one that does not exist as CheckFilters does.
func (f *FS) DevicesOf(flt view.Filters) ([]Device, error) {
	names, err := f.CheckFilters(flt)
	if err != nil {
		return nil, err
	}
	if named := flt.Devices(); len(named) > 0 {
		names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(named, n) })
	}
	var devs []Device
	for _, n := range names {
		d, err := f.Device(n)
		if err != nil {
			return nil, err
		}
		devs = append(devs, d)
	}
	return devs, nil
}
