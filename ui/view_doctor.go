package ui

import (
	"context"
	"errors"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/themes"
)

// doctorSpec is the troubleshooting checklist (Sources.Doctor), run
// when the view is first shown and again on r.
var doctorSpec = viewSpec{name: "doctor", title: "doctor", about: "the troubleshooting checklist (r re-runs it)", make: func(c *common) component {
	return &doctorView{c: c, rerun: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-run doctor"))}
}}

type doctorView struct {
	c      *common
	rerun  key.Binding
	checks []DoctorCheck
	err    error
	busy   bool
	at     time.Time
}

type doctorMsg struct {
	checks []DoctorCheck
	err    error
}

var doctorCols = []column{col("id", "check", 0, false), col("verdict", "verdict", 0, false), {Key: "summary", Title: "summary", Prio: 0}}

var errNoDoctor = errors.New("doctor is not available in this dashboard")

func (v *doctorView) columns() []column   { return doctorCols }
func (v *doctorView) filter() matcher     { return nil }
func (v *doctorView) keys() []key.Binding { return []key.Binding{v.rerun} }

func (v *doctorView) take(msg tea.Msg) (rowSet, bool, tea.Cmd) {
	switch msg := msg.(type) {
	case shownMsg:
		if v.checks == nil && !v.busy {
			return v.run()
		}
	case tea.KeyPressMsg:
		return v.run()
	case doctorMsg:
		v.busy, v.checks, v.err, v.at = false, msg.checks, msg.err, v.c.now()
		return rowSet{rows: v.rows()}, true, nil
	}
	return rowSet{}, false, nil
}

// run runs the checklist in a Cmd.
func (v *doctorView) run() (rowSet, bool, tea.Cmd) {
	if v.c.src.Doctor == nil {
		v.err = errNoDoctor
		return rowSet{rows: v.rows()}, true, nil
	}
	if v.busy {
		return rowSet{}, false, nil
	}
	v.busy = true
	run := v.c.src.Doctor
	return rowSet{rows: v.rows()}, true, func() tea.Msg {
		checks, err := run(context.Background())
		return doctorMsg{checks, err}
	}
}

func (v *doctorView) rows() []tableRow {
	var rows []tableRow
	for _, c := range v.checks {
		mark := markNone
		switch c.Verdict {
		case "fail":
			mark = markError
		case "warn":
			mark = markWarn
		}
		rows = append(rows, tableRow{Key: c.ID, Cells: []string{c.ID, c.Verdict, c.Summary}, Mark: mark, Nums: nanRow(3)})
	}
	return rows
}

func (v *doctorView) heading() string {
	switch {
	case v.busy:
		return "doctor (running…)"
	case !v.at.IsZero():
		return "doctor at " + v.at.Format("15:04:05") + " (r re-runs)"
	}
	return "doctor"
}

func (v *doctorView) empty() string {
	if v.busy {
		return "running the checklist…"
	}
	if v.err != nil {
		return v.err.Error()
	}
	return ""
}

func (v *doctorView) detail(r tableRow) []string {
	th := v.c.theme
	out := cellLines(th, doctorCols, r)
	for _, c := range v.checks {
		if c.ID != r.Key {
			continue
		}
		out = append(out, "", th.Render(themes.SlotHeader, c.Title))
		if len(c.Evidence) > 0 {
			out = append(out, "", th.Render(themes.SlotHeader, "evidence"))
			for _, e := range c.Evidence {
				out = append(out, "  "+e)
			}
		}
		if len(c.Fix) > 0 {
			out = append(out, "", th.Render(themes.SlotHeader, "fix"))
			for _, f := range c.Fix {
				out = append(out, "  "+f)
			}
		}
		break
	}
	return out
}
