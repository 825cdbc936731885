package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/fleet"
)

var sizes = [][2]int{{80, 24}, {160, 48}}

// doctorFixture is a real doctor run in the lab (doctor/testdata).
func doctorFixture(t testing.TB) doctorMsg {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "doctor", "testdata", "rxe0-live-json.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Checks []struct {
			ID, Title, Verdict, Summary string
			Evidence                    []struct{ What, Value, Source, Verdict string }
			Fix                         []string
		}
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var out []DoctorCheck
	for _, c := range rep.Checks {
		dc := DoctorCheck{ID: c.ID, Title: c.Title, Verdict: c.Verdict, Summary: c.Summary, Fix: c.Fix}
		for _, e := range c.Evidence {
			dc.Evidence = append(dc.Evidence, e.What+": "+e.Value+"  ("+e.Source+")")
		}
		out = append(out, dc)
	}
	return doctorMsg{checks: out}
}

func TestViewsGolden(t *testing.T) {
	for _, tree := range []string{"rxe0", "mlx5"} {
		for _, sz := range sizes {
			for _, v := range ViewNames() {
				if tree == "mlx5" && !isSysView(v) && v != "overview" {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/%dx%d", tree, v, sz[0], sz[1]), func(t *testing.T) {
					m := fixtureModel(t, tree, "dark", sz[0], sz[1], true)
					m.Update(doctorFixture(t))
					m.Update(m.jumpMsg(v))
					out := screen(m)
					checkFits(t, out, sz[0], sz[1])
					requireBody(t, out)
				})
			}
		}
	}
}

// The overview at the three sizes the issue names: it must fit at 80x24
// (boxes drop by priority) and use the room at 200x60.
func TestOverviewGolden(t *testing.T) {
	for _, tree := range []string{"rxe0", "mlx5"} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
			t.Run(fmt.Sprintf("%s/%dx%d", tree, sz[0], sz[1]), func(t *testing.T) {
				m := fixtureModel(t, tree, "dark", sz[0], sz[1], true)
				m.Update(m.jumpMsg("overview"))
				out := screen(m)
				checkFits(t, out, sz[0], sz[1])
				for _, box := range []string{"1 ports", "2 QPs", "4 events"} {
					if !strings.Contains(out, box) {
						t.Errorf("the %q box is missing:\n%s", box, out)
					}
				}
				requireBody(t, out)
			})
		}
	}
}

func isSysView(v string) bool {
	switch v {
	case "dev", "port", "gid", "irq", "counters":
		return true
	}
	return false
}

// checkFits: exactly h lines, none wider than w.
func checkFits(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, the terminal has %d: %q", i, n, w, l)
		}
	}
}

// Each theme's colours, downsampled as a 256-colour terminal would get
// them: the QP view and the ports.
func TestThemesGolden(t *testing.T) {
	for _, theme := range []string{"dark", "light", "high-contrast", "mono"} {
		for _, v := range []string{"qp", "port"} {
			t.Run(theme+"/"+v, func(t *testing.T) {
				m := fixtureModel(t, "rxe0", theme, 80, 24, true)
				m.Update(m.jumpMsg(v))
				var b bytes.Buffer
				w := &colorprofile.Writer{Forward: &b, Profile: colorprofile.ANSI256}
				if _, err := w.WriteString(m.render()); err != nil {
					t.Fatal(err)
				}
				requireBody(t, b.String())
			})
		}
	}
}

// NO_COLOR: no colour at all, bold and reverse kept.
func TestNoColor(t *testing.T) {
	th := mustLoad(t, "dark", true)
	m := fixtureModel(t, "rxe0", "dark", 80, 24, true)
	m.setTheme(th)
	var b bytes.Buffer
	w := &colorprofile.Writer{Forward: &b, Profile: colorprofile.Ascii}
	w.WriteString(m.render())
	out := b.String()
	if c := colourParam(out); c != "" {
		t.Fatalf("a colour escape under NO_COLOR: %q", c)
	}
	if !strings.Contains(out, "\x1b[7m") && !strings.Contains(out, ";7m") {
		t.Error("the selected row lost its reverse video under NO_COLOR")
	}
}

var sgrRE = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colourParam returns the first SGR sequence that sets a colour.
func colourParam(s string) string {
	for _, m := range sgrRE.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.Split(m[1], ";") {
			n, err := strconv.Atoi(p)
			if err != nil {
				continue
			}
			if n >= 30 && n <= 49 && n != 39 && n != 49 || n >= 90 && n <= 107 {
				return m[0]
			}
		}
	}
	return ""
}

// The fleet view from Prometheus answers recorded in the lab's pair test
// (host a with a QP in ERR and its alerts, b clean).
func TestFleetGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "fleet", "testdata", "lab-pair-fleet-api.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec fleet.Replay
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := fixtureModel(t, "rxe0", "dark", sz[0], sz[1], true)
			m.c.src.Fleet = func(ctx context.Context) ([]fleet.Host, error) {
				return fleet.Rows(ctx, &fleet.Client{URL: "http://prometheus.recorded", HTTP: &http.Client{Transport: rec}}, "verbscope")
			}
			m.Update(m.jumpMsg("fleet"))
			m.Update(m.fetchFleetNow())
			out := screen(m)
			if !strings.Contains(out, "10.0.1.1:9879") || !strings.Contains(out, "10.0.1.2:9879") {
				t.Errorf("the fleet view lacks a host:\n%s", out)
			}
			checkFits(t, out, sz[0], sz[1])
			requireBody(t, out)
		})
	}
}

// TestOverviewEventsCut: the overview draws only the events its box can
// show, and says how many more, the same screen as with every event
// drawn (the events view keeps up to maxEvents).
func TestOverviewEventsCut(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, true)
	m.Update(m.jumpMsg("overview"))
	for i := range maxEvents {
		m.c.res.events = append(m.c.res.events, tableRow{Cells: []string{"12:00:00", fmt.Sprintf("rxe0 qp %d", 100+i), "appeared"}})
	}
	v := &overviewView{c: m.c}
	cut := v.boxes(120, 36, nil)
	all, more := v.eventLines(nil, 1<<30)
	if more != 0 || len(all) < maxEvents {
		t.Fatalf("uncut: %d lines, %d more", len(all), more)
	}
	if len(cut[3].lines) != 36 || cut[3].more != len(all)-36 {
		t.Errorf("cut to %d lines and %d more; want 36 and %d", len(cut[3].lines), cut[3].more, len(all)-36)
	}
	uncut := slices.Clone(cut)
	uncut[3].lines, uncut[3].more = all, 0
	got, want := renderBoxes(m.c.theme, cut, 120, 36), renderBoxes(m.c.theme, uncut, 120, 36)
	if got != want {
		t.Errorf("the cut events draw another screen:\n%s\nwant:\n%s", ansi.Strip(got), ansi.Strip(want))
	}
	if !strings.Contains(ansi.Strip(got), " more (4 shows all)") {
		t.Errorf("no line says how many more:\n%s", ansi.Strip(got))
	}
}
