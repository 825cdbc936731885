package ui

import (
	"context"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/fleet"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// fleetEvery is how often the fleet view asks Prometheus again while it
// is shown (Prometheus itself scrapes every 15 s by default).
const fleetEvery = 15 * time.Second

var fleetCols = []Column{col("host", "host", 0, false), col("up", "up", 0, false), col("devices", "devices", 3, true),
	col("ports", "ports up/down", 1, false), {Key: "qps", Title: "QPs by state", Prio: 2}, col("failed", "failed", 0, true),
	col("stuck", "stuck", 0, true), col("to_err", "to ERR", 2, true), col("errors", "errors/s", 1, true),
	{Key: "alerts", Title: "alerts", Prio: 1}}

type (
	fleetMsg struct {
		hosts []fleet.Host
		err   error
	}
	fleetTickMsg struct{ seq int }
)

// fetchFleet asks Prometheus for every host (in a Cmd: it is HTTP).
func (m *Model) fetchFleet() tea.Cmd {
	if m.src.Fleet == nil || m.fleetBusy {
		return nil
	}
	m.fleetBusy = true
	get := m.src.Fleet
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		hs, err := get(ctx)
		return fleetMsg{hs, err}
	}
}

// fleetTick re-asks while the fleet view is shown; a tick of an older
// loop (seq) dies.
func (m *Model) fleetTick() tea.Cmd {
	m.fleetSeq++
	seq := m.fleetSeq
	return tea.Tick(fleetEvery, func(time.Time) tea.Msg { return fleetTickMsg{seq} })
}

func (m *Model) gotFleet(msg fleetMsg) {
	m.fleetBusy, m.fleetErr, m.fleetAt = false, msg.err, m.now()
	if msg.err != nil {
		m.note(themes.SlotWarn, "fleet: "+firstLine(msg.err.Error()))
		return
	}
	var rows []Row
	for _, h := range msg.hosts {
		up := "yes"
		mark := MarkNone
		switch {
		case !h.Up || h.Failed > 0:
			mark = MarkError
		case h.Stuck > 0 || h.PortsDown > 0 || len(h.Alerts) > 0 || len(h.Failing) > 0:
			mark = MarkWarn
		}
		if !h.Up {
			up = "DOWN"
		}
		var qps []string
		for _, s := range fleet.States {
			if n := h.QPs[s]; n > 0 {
				qps = append(qps, s+" "+strconv.Itoa(n))
			}
		}
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
		rows = append(rows, Row{Key: h.Instance, Cells: cells, Nums: nums, Mark: mark})
	}
	for _, v := range m.views {
		if v.group == "fleet" {
			m.feed(v, rows)
			v.table.Title = "fleet at " + m.fleetAt.Format("15:04:05")
		}
	}
}
