package ui

import (
	"context"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/fleet"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// fleetEvery is how often the fleet view asks Prometheus again while it
// is shown (Prometheus itself scrapes every 15 s by default).
const fleetEvery = 15 * time.Second

var fleetCols = []column{col("host", "host", 0, false), col("up", "up", 0, false), col("devices", "devices", 3, true),
	col("ports", "ports up/down", 1, false), {Key: "qps", Title: "QPs by state", Prio: 2}, col("failed", "failed", 0, true),
	col("stuck", "stuck", 0, true), col("to_err", "to ERR", 2, true), col("errors", "errors/s", 1, true),
	{Key: "alerts", Title: "alerts", Prio: 1}}

// fleetSpec is every host running verbscope export, as a Prometheus
// knows them (Sources.Fleet); it asks again every fleetEvery while shown.
var fleetSpec = viewSpec{name: "fleet", title: "fleet", about: "every host a Prometheus scrapes 'verbscope export' on (--prometheus URL)", aliases: []string{"hosts"}, make: func(c *common) component {
	return &fleetView{c: c}
}}

type fleetView struct {
	c    *common
	busy bool
	err  error
	// at is when Prometheus last answered.
	at time.Time
	// seq numbers the ask loops: a tick of an older loop dies.
	seq int
}

type (
	fleetMsg struct {
		hosts []fleet.Host
		err   error
	}
	fleetTickMsg struct{ seq int }
)

func (v *fleetView) columns() []column          { return fleetCols }
func (v *fleetView) filter() matcher            { return nil }
func (v *fleetView) keys() []key.Binding        { return nil }
func (v *fleetView) detail(r tableRow) []string { return cellLines(v.c.theme, fleetCols, r) }

func (v *fleetView) heading() string {
	if v.at.IsZero() {
		return ""
	}
	return "fleet at " + v.at.Format("15:04:05")
}

func (v *fleetView) empty() string {
	switch {
	case v.c.src.Fleet == nil:
		return "no Prometheus to ask: start the dashboard with --prometheus URL (the server that scrapes verbscope export on every host)"
	case v.err != nil:
		return v.err.Error()
	case v.busy:
		return "asking Prometheus…"
	}
	return "Prometheus knows no host of this job"
}

func (v *fleetView) take(msg tea.Msg) (rowSet, bool, tea.Cmd) {
	switch msg := msg.(type) {
	case shownMsg:
		return rowSet{}, false, tea.Batch(v.fetch(), v.tick())
	case fleetTickMsg:
		if msg.seq != v.seq || v.c.shown != component(v) {
			return rowSet{}, false, nil // an old loop, or the view is not shown
		}
		return rowSet{}, false, tea.Batch(v.fetch(), v.tick())
	case fleetMsg:
		return v.got(msg)
	}
	return rowSet{}, false, nil
}

// fetch asks Prometheus for every host (in a Cmd: it is HTTP).
func (v *fleetView) fetch() tea.Cmd {
	if v.c.src.Fleet == nil || v.busy {
		return nil
	}
	v.busy = true
	get := v.c.src.Fleet
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		hs, err := get(ctx)
		return fleetMsg{hs, err}
	}
}

// tick re-asks while the view is shown.
func (v *fleetView) tick() tea.Cmd {
	v.seq++
	seq := v.seq
	return tea.Tick(fleetEvery, func(time.Time) tea.Msg { return fleetTickMsg{seq} })
}

func (v *fleetView) got(msg fleetMsg) (rowSet, bool, tea.Cmd) {
	v.busy, v.err = false, msg.err
	if msg.err != nil {
		v.c.note(themes.SlotWarn, "fleet: "+firstLine(msg.err.Error()))
		return rowSet{}, false, nil
	}
	v.at = v.c.now()
	var rows []tableRow
	for _, h := range msg.hosts {
		up := "yes"
		mark := markNone
		switch {
		case !h.Up || h.Failed > 0:
			mark = markError
		case h.Stuck > 0 || h.PortsDown > 0 || len(h.Alerts) > 0 || len(h.Failing) > 0:
			mark = markWarn
		}
		if !h.Up {
			up = "DOWN"
		}
		qps := h.QPsByState()
		alerts := strings.Join(h.Alerts, ",")
		if len(h.Pending) > 0 {
			alerts += " (pending " + strings.Join(h.Pending, ",") + ")"
		}
		alerts = view.Printable(alerts)
		cells := []string{view.Printable(h.Instance), up, strconv.Itoa(h.Devices), strconv.Itoa(h.PortsUp) + "/" + strconv.Itoa(h.PortsDown),
			strings.Join(qps, " "), strconv.Itoa(h.Failed), strconv.Itoa(h.Stuck), strconv.Itoa(h.ToErr),
			strconv.FormatFloat(h.ErrorRate, 'g', 3, 64), strings.TrimSpace(alerts)}
		nums := nanRow(len(cells))
		for _, i := range []int{2, 5, 6, 7, 8} {
			nums[i], _ = strconv.ParseFloat(cells[i], 64)
		}
		rows = append(rows, tableRow{Key: h.Instance, Cells: cells, Nums: nums, Mark: mark})
	}
	return rowSet{rows: rows}, true, nil
}
