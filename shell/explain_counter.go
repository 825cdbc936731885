package shell

import (
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/counters"
)

// counterParts explains w as an RDMA counter from the registry: "NAME"
// (every driver that has it, once where they agree) or "DRIVER/NAME"
// (mlx5/rnr_nak_retry_err).
func counterParts(w string) []string {
	drv, name, scoped := strings.Cut(w, "/")
	if !scoped {
		drv, name = "", w
	}
	if drv != "" {
		if in, ok := counters.Lookup(drv, name); ok {
			return []string{counterText(drv, in)}
		}
		return nil
	}
	if in, ok := counters.Lookup("", name); ok {
		return []string{counterText(driversOf(name), in)}
	}
	var out []string
	for _, d := range counters.Drivers() {
		if in, ok := counters.Lookup(d, name); ok && in.Source != "" && hasOwn(d, name) {
			out = append(out, counterText(d, in))
		}
	}
	return out
}

// hasOwn tells whether driver's own table has name (not only through
// the PortCounters every driver shares), a numbered family's included.
func hasOwn(driver, name string) bool {
	_, ok := counters.Own(driver, name)
	return ok
}

// driversOf lists the drivers that have name, "PortCounters" for the
// IBTA ones.
func driversOf(name string) string {
	var ds []string
	if hasOwn("", name) {
		ds = append(ds, "PortCounters")
	}
	for _, d := range counters.Drivers() {
		if hasOwn(d, name) {
			ds = append(ds, d)
		}
	}
	return strings.Join(ds, ", ")
}

func counterText(drivers string, in counters.Info) string {
	var b strings.Builder
	fate := "recoverable"
	if in.Terminal {
		fate = "terminal"
	}
	fmt.Fprintf(&b, "%s (counter of %s): %s\n  class %s, %s side, %s", in.Name, drivers, in.Meaning, in.Class, in.Side, fate)
	if in.Bits > 0 {
		fmt.Fprintf(&b, ", %d bits", in.Bits)
	}
	if in.Signal != counters.SignalNone {
		fmt.Fprintf(&b, ", signal %s", in.Signal)
	}
	fmt.Fprintf(&b, "\n  %s", in.Explain)
	return b.String()
}
