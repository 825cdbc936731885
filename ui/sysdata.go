package ui

import (
	"math"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

// sparkLen is how many readings a counter's sparkline shows.
const sparkLen = 24

// sysData is one sysfsmon reading prepared for the dev, port, gid, irq
// and counters views, off the UI goroutine. The rows are sysfsmon's own
// (the ones `verbscope devices`, `ports`… print); the dashboard adds
// only marks, sparklines and the per-CPU strip.
type sysData struct {
	u     sysfsmon.Update
	rows  map[string][]tableRow
	notes map[string]string // per view: why it is empty (rxe has no IRQs)
	// flows are the ports' rates for the overview (flows.go).
	flows []portFlow
}

// sysBuilder keeps each counter's recent rates for the sparklines.
type sysBuilder struct {
	rates map[string][]float64
	// flowHist keeps each port's recent rates (flows.go).
	flowHist map[string][]float64
	dev      string // only this device, when set
}

func newSysBuilder(dev string) *sysBuilder {
	return &sysBuilder{rates: map[string][]float64{}, flowHist: map[string][]float64{}, dev: dev}
}

// skip tells a device the dashboard was not asked to show.
func (p *sysBuilder) skip(dev string) bool { return p.dev != "" && dev != p.dev }

// build makes the sysfs views' rows of one reading.
func (p *sysBuilder) build(u sysfsmon.Update, ascii bool) *sysData {
	d := &sysData{u: u, rows: map[string][]tableRow{}, notes: map[string]string{}}
	add := func(name string, r view.Row, mark rowMark) tableRow {
		cols := sysfsColumns[name]
		row := fromFields(cols, colIndex(cols), r)
		row.Mark = mark
		d.rows[name] = append(d.rows[name], row)
		return row
	}
	for i := range u.Devices {
		dev := &u.Devices[i]
		if p.skip(dev.Name) {
			continue
		}
		add("dev", dev.Row(), markNone)
		for j := range dev.Ports {
			pt := &dev.Ports[j]
			mark := markNone
			if !pt.State.Up() {
				mark = markWarn
			}
			add("port", pt.Row(), mark)
			for _, g := range pt.GIDRows() {
				add("gid", g, markNone)
			}
		}
	}
	if len(u.Devices) == 0 {
		for _, v := range []string{"dev", "port", "gid"} {
			d.notes[v] = "no RDMA devices in /sys/class/infiniband"
		}
	}
	p.irqs(d, u, ascii)
	p.counters(d, u, ascii)
	return d
}

var nan = math.NaN()

var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values scaled to their maximum.
func sparkline(vals []float64, ascii bool) string {
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if top > 0 {
			i = int(v / top * float64(len(sparkRunes)-1))
		}
		if ascii {
			b.WriteByte(" .:-=+*#"[i])
		} else {
			b.WriteRune(sparkRunes[i])
		}
	}
	return b.String()
}
