package ui

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/verbscope/verbscope/sysfsmon"
)

// portFlow is what a port moves now, for the overview: its sent and
// received rates in the best unit its counters give (bytes where the
// device counts data, packets where it counts only packets, as rxe
// does), their recent sum for a sparkline, and its error counters.
type portFlow struct {
	Dev  string
	Port int
	// Unit is bytes or packets; events when the port counts neither.
	Unit   sysfsmon.CounterUnit
	TX, RX float64 // per second, in Unit
	Hist   []float64
	// Errors is the sum of its error counters; ErrRate their rate now.
	Errors  uint64
	ErrRate float64
	// Rated is false on the first reading: no rates yet.
	Rated bool
}

// flowSum gathers one port's counters of one unit.
type flowSum struct {
	tx, rx float64
	seen   bool
}

// flows adds up each port's counters into a portFlow, keeping the
// recent sums in the builder for the sparklines.
func (p *sysBuilder) flows(d *sysData, u sysfsmon.Update, rates []sysfsmon.CounterRate) {
	type acc struct {
		dev         string
		port        int
		bytes, pkts flowSum
		errors      uint64
		errRate     float64
		rated       bool
	}
	byPort := map[string]*acc{}
	var order []string
	for i := range rates {
		r := &rates[i]
		if p.skip(r.Device) || r.Port == 0 {
			continue // device-level counters belong to no port
		}
		k := r.Device + "/" + strconv.Itoa(r.Port)
		a := byPort[k]
		if a == nil {
			a = &acc{dev: r.Device, port: r.Port, rated: u.CounterRates != nil}
			byPort[k] = a
			order = append(order, k)
		}
		if r.Error {
			a.errors += r.Value
			a.errRate += r.Rate
		}
		unit, scale := r.Unit()
		s := &a.pkts
		if unit == sysfsmon.UnitBytes {
			s = &a.bytes
		}
		switch r.Flow() {
		case "tx":
			s.tx += r.Rate * float64(scale)
			s.seen = true
		case "rx":
			s.rx += r.Rate * float64(scale)
			s.seen = true
		}
	}
	live := map[string]bool{}
	for _, k := range order {
		a := byPort[k]
		f := portFlow{Dev: a.dev, Port: a.port, Errors: a.errors, ErrRate: a.errRate, Rated: a.rated}
		switch {
		case a.bytes.seen:
			f.Unit, f.TX, f.RX = sysfsmon.UnitBytes, a.bytes.tx, a.bytes.rx
		case a.pkts.seen:
			f.Unit, f.TX, f.RX = sysfsmon.UnitPackets, a.pkts.tx, a.pkts.rx
		}
		live[k] = true
		if f.Rated {
			h := append(p.flowHist[k], f.TX+f.RX)
			if len(h) > sparkLen {
				h = h[len(h)-sparkLen:]
			}
			p.flowHist[k] = h
		}
		f.Hist = slices.Clone(p.flowHist[k])
		d.flows = append(d.flows, f)
	}
	for k := range p.flowHist {
		if !live[k] {
			delete(p.flowHist, k)
		}
	}
	slices.SortFunc(d.flows, func(a, b portFlow) int { return cmp.Or(cmp.Compare(a.Dev, b.Dev), cmp.Compare(a.Port, b.Port)) })
}
