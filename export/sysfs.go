package export

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verbscope/verbscope/sysfsmon"
)

// collectDevices sends the _info, state and rate metrics of every device
// and port sysfs shows.
func (c *Collector) collectDevices(ch chan<- prometheus.Metric) {
	r := &c.sys
	err := r.DevicesErr
	for _, d := range r.Devices {
		ch <- gauge(descDeviceInfo, 1, d.Name, d.NodeGUID, d.SysImageGUID, d.FWVer, d.NodeTypeName)
		for _, p := range d.Ports {
			port := strconv.Itoa(p.Port)
			ch <- gauge(descPortInfo, 1, d.Name, port, p.LinkLayer, p.Netdev)
			// A file that did not parse is left out, not reported as 0,
			// and fails the collector.
			if p.StateName != "" {
				ch <- gauge(descPortState, float64(p.State), d.Name, port)
			} else if err == nil {
				err = fmt.Errorf("export: %s port %d: unreadable state", d.Name, p.Port)
			}
			if p.PhysStateName != "" {
				ch <- gauge(descPortPhysState, float64(p.PhysState), d.Name, port)
			} else if err == nil {
				err = fmt.Errorf("export: %s port %d: unreadable phys_state", d.Name, p.Port)
			}
			if p.Width != "" {
				ch <- gauge(descPortRate, p.Gbps*1e9/8, d.Name, port)
			} else if p.RateText != "" && err == nil {
				err = fmt.Errorf("export: %s port %d: unreadable rate %q", d.Name, p.Port, p.RateText)
			}
		}
	}
	report(ch, collDevices, err, r.DevicesTook, c.sysAt)
}

// collectCounters sends the port counters the devices have: counters/
// where the driver answers for the IBTA PortCounters, the curated
// hw_counters/; nothing for a counter the device lacks. A counter file
// that cannot be read fails the collector but not the others.
func (c *Collector) collectCounters(ch chan<- prometheus.Metric) {
	r := &c.sys
	err := r.CountersErr
	if err == nil && r.Counters != nil {
		for _, w := range r.Counters.Warnings {
			// A port without a performance agent is how the device is,
			// not a failure of the collector.
			if !errors.Is(w.Err, sysfsmon.ErrUnavailable) {
				err = w.Err
				break
			}
		}
	}
	report(ch, collCounters, err, r.CountersTook, c.sysAt)
	if r.Counters == nil {
		return
	}
	byFile := map[string]portCounter{}
	for _, pc := range portCounters() {
		byFile[pc.file] = pc
	}
	type series struct {
		d    *prometheus.Desc
		dev  string
		port int
	}
	sent := map[series]bool{}
	for _, k := range r.Counters.Counters {
		if k.Port == 0 || k.Unavailable {
			continue // device-wide hw_counters have no port to label; N/A is no value
		}
		var d *prometheus.Desc
		scale := 1.0
		switch k.Group {
		case "counters":
			pc, ok := byFile[k.Name]
			if !ok {
				continue
			}
			d, scale = pc.desc, pc.scale
		case "hw_counters":
			if d = hwByFile()[k.Name]; d == nil {
				continue
			}
		}
		s := series{d, k.Device, k.Port}
		if d == nil || sent[s] {
			continue // two files a driver names differently, counted once
		}
		sent[s] = true
		ch <- counter(d, float64(k.Value)*scale, k.Device, strconv.Itoa(k.Port))
	}
}

// hwByFile is hwTables' metric of each hw_counters/ file.
func hwByFile() map[string]*prometheus.Desc {
	byFile, _ := hwTables()
	return byFile
}
