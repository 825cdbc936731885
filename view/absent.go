package view

import (
	"slices"
	"strconv"
	"strings"
)

// AbsentError is a device or port the filters name that the host does
// not have: a typo in the command line, not an empty listing. What says
// so and lists what the host has; a front end shows it as a usage
// mistake (the CLI's exit status 2).
type AbsentError struct{ What string }

func (e *AbsentError) Error() string { return "view: filter: " + e.What }

// CheckDevices refuses a device the filters name that is not among
// names (those that exist), listing them.
func (fs Filters) CheckDevices(names []string) error {
	for _, d := range fs.Devices() {
		if slices.Contains(names, d) {
			continue
		}
		if len(names) == 0 {
			return &AbsentError{"no RDMA device " + strconv.Quote(d) + ": this host has none"}
		}
		return &AbsentError{"no RDMA device " + strconv.Quote(d) + "; there are: " + strings.Join(names, ", ")}
	}
	return nil
}

// CheckPorts refuses a DEV/PORT the filters name whose device (which
// exists: CheckDevices said so) has no such port, listing its ports:
// `gids rxe0/999` is a mistake, not an empty table. ports maps each
// device to its port numbers; a device it does not hold is not checked.
func (fs Filters) CheckPorts(ports map[string][]uint32) error {
	for _, p := range fs.Ports() {
		have, ok := ports[p.Dev]
		if !ok || slices.Contains(have, p.Port) {
			continue
		}
		nums := make([]string, len(have))
		for i, n := range have {
			nums[i] = strconv.FormatUint(uint64(n), 10)
		}
		no := p.Dev + " has no port " + strconv.FormatUint(uint64(p.Port), 10)
		if len(have) == 0 {
			return &AbsentError{no + ": it has no ports"}
		}
		return &AbsentError{no + "; its ports are: " + strings.Join(nums, ", ")}
	}
	return nil
}
