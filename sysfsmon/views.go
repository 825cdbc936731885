package sysfsmon

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/view"
)

// What the sysfs view commands (verbscope devices, ports, gids, irqs,
// counters) print of the rows in rows.go beyond view's table and JSON:
// the rows a view's filters pass, devices' details, the GID to use, a
// device's interrupts under its facts line.

// DeviceRows returns the devices' rows (Device.Row) that flt passes.
func DeviceRows(devs []Device, flt view.Filters) []view.Row {
	var rows []view.Row
	for i := range devs {
		if r := devs[i].Row(); flt.Match(r) {
			rows = append(rows, r)
		}
	}
	return rows
}

// WriteDeviceDetails prints, after the table, the DetailRow of each
// device flt passes under a blank line (verbscope devices -d).
func WriteDeviceDetails(w io.Writer, devs []Device, flt view.Filters) error {
	for i := range devs {
		if !flt.Match(devs[i].Row()) {
			continue
		}
		if _, err := fmt.Fprintf(w, "\n%s\n", devs[i].DetailRow().Text()); err != nil {
			return err
		}
	}
	return nil
}

// PortRows returns the devices' ports' rows (Port.Row) that flt passes.
func PortRows(devs []Device, flt view.Filters) []view.Row {
	var rows []view.Row
	for _, d := range devs {
		for i := range d.Ports {
			if r := d.Ports[i].Row(); flt.Match(r) {
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// GIDRows returns the devices' GIDs' rows (Port.GIDRows) that flt
// passes.
func GIDRows(devs []Device, flt view.Filters) []view.Row {
	var rows []view.Row
	for _, d := range devs {
		for _, p := range d.Ports {
			for _, r := range p.GIDRows() {
				if flt.Match(r) {
					rows = append(rows, r)
				}
			}
		}
	}
	return rows
}

// WriteGIDNote prints, after the table of rows, the GIDs to use for
// RoCE v2 over IPv4 (the recommended ones: ibv_rc_pingpong -g INDEX),
// when there are any.
func WriteGIDNote(w io.Writer, rows []view.Row) error {
	var recommended []string
	for _, r := range rows {
		if rec, _ := r.Get("recommended"); rec.Value != true {
			continue
		}
		dev, _ := r.Get("dev")
		port, _ := r.Get("port")
		idx, _ := r.Get("index")
		recommended = append(recommended, fmt.Sprintf("%s port %d index %d", dev.Text, port.Num, idx.Num))
	}
	if len(recommended) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "\n* for RoCE v2 over IPv4 (or InfiniBand): %s\n", strings.Join(recommended, "; "))
	return err
}

// WriteText prints the device's facts line and its table of IRQs
// (IRQRows: counts, or with withRates interrupts per second), as
// `verbscope irqs` shows it; vectors is num_comp_vectors when
// libibverbs told it.
func (d *DeviceIRQs) WriteText(w io.Writer, cpus []int, vectors *int, rates []IRQRate, withRates bool) error {
	var facts []string
	if d.Soft {
		facts = append(facts, "software device")
	} else if d.PCI != "" {
		facts = append(facts, "pci "+d.PCI)
	}
	if d.NUMANode != nil {
		facts = append(facts, "numa node "+strconv.Itoa(*d.NUMANode))
	}
	if len(d.Netdevs) > 0 {
		facts = append(facts, "netdevs "+strings.Join(d.Netdevs, ","))
	}
	if vectors != nil {
		facts = append(facts, fmt.Sprintf("num_comp_vectors %d", *vectors))
	}
	fmt.Fprintf(w, "%s: %s\n", d.Device, strings.Join(facts, ", "))
	if len(d.IRQs) == 0 {
		fmt.Fprintf(w, "  no IRQs: %s\n", d.NoIRQs)
		if d.Soft && vectors != nil {
			fmt.Fprintf(w, "  (its %d completion vectors are not interrupts)\n", *vectors)
		}
		return nil
	}
	return view.WriteTable(w, "  ", d.IRQRows(cpus, rates, withRates))
}

// CounterRows returns the counters' rows (CounterRate.Row, with the
// change and rate when interval) that flt passes: with onlyErr only the
// error counters, with nonzero only those that are not 0 (with interval:
// that moved, or were reset).
func CounterRows(rates []CounterRate, flt view.Filters, interval, onlyErr, nonzero bool) []view.Row {
	var rows []view.Row
	for i := range rates {
		r := &rates[i]
		if (onlyErr && !r.Error) || (nonzero && ((interval && r.Delta == 0 && !r.Reset) || (!interval && r.Value == 0))) {
			continue
		}
		if row := r.Row(interval); flt.Match(row) {
			rows = append(rows, row)
		}
	}
	return rows
}
