//go:build lab

package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
)

// TestDashboardVerdict provokes RNR between two RC QPs of the
// dashboard's own shell pane, connected to each other on rxe0: while the
// pair is healthy (a send with a receive posted, then idle), the
// diagnosis gives no verdict; a send with no receive posted makes the
// alerts line name rnr and the QP's detail open with the verdict and the
// peer's PSNs beside its own; `why` in the pane says the same. Then
// the peer destroyed: the alerts line names peer_gone.
func TestDashboardVerdict(t *testing.T) {
	labkit.Clean(t)
	s, _ := startDash(t, "verbscope dash --view qp --interval 500ms; echo status=$?")
	s.key("Tab")
	s.keys("-l", "open; pd; cq size=16; qp type=rc cq=cq1; qp type=rc cq=cq1; mr size=4096 access=local_write; mr size=4096 access=local_write; connect qp1 qp2")
	s.key("Enter")
	scr := s.waitRE(`qp1 \(QP \d+\) and qp2 \(QP \d+\) are connected`)
	m := regexp.MustCompile(`qp1 \(QP (\d+)\) and qp2 \(QP (\d+)\) are connected`).FindStringSubmatch(scr)
	qp1, qp2 := m[1], m[2]

	// Healthy: a send that a receive takes, then the pair idle. `why`
	// watches for its readings (a few seconds: the dashboard reads
	// several times meanwhile) and finds nothing; neither does the
	// dashboard.
	s.keys("-l", `post recv qp2 mr2[0:64]; write mr1[0] "HI"; post send qp1 mr1[0:2]; poll cq1 until=recv wait=10s`)
	s.key("Enter")
	s.waitRE(`RECV\s+success`)
	s.keys("-l", "why qp1")
	s.key("Enter")
	scr = s.waitLong("nothing is wrong with it")
	if strings.Contains(scr, "stuck:") || strings.Contains(scr, "causes ") {
		t.Errorf("a healthy pair got a verdict:\n%s", scr)
	}

	// RNR: qp2 has no receive left.
	s.keys("-l", "post send qp1 mr1[0:2]")
	s.key("Enter")
	scr = s.waitLong("stuck: rxe0 qp " + qp1 + " rnr")
	if want := "peer this host qp " + qp2 + " has no receive posted"; !strings.Contains(scr, want) {
		t.Errorf("the alerts line does not say %q:\n%s", want, scr)
	}
	s.keys("-l", "why qp1")
	s.key("Enter")
	s.waitLong("rxe0 qp " + qp1 + " rnr (peer this host qp " + qp2)

	// The QP's detail: the pane lets go of the keys, the QP view is
	// filtered to qp1 and its row opened.
	s.key("Escape")
	s.waitLong("(tab to type)")
	s.key("/")
	s.keys("-l", "lqpn="+qp1)
	s.waitLong("</lqpn=" + qp1 + ">") // the filter applies as it is typed
	s.key("Enter")
	s.waitRE(`QPs \[1/\d+\] </lqpn=` + qp1 + `>`)
	s.key("Enter")
	s.waitLong("QPs: rxe0 qp " + qp1 + " ")
	scr = s.waitLong("verdict")
	// The detail's lines wrap at the screen's width: read it as one.
	flat := strings.Join(strings.Fields(scr), " ")
	if !regexp.MustCompile(`verdict rnr \((certain|probable)\): peer this host qp ` + qp2 + ` has no receive posted`).MatchString(flat) {
		t.Errorf("the detail does not open with the rnr verdict:\n%s", scr)
	}
	if !regexp.MustCompile(`PSNs sq-psn \d+ rq-psn \d+ │ peer this host qp ` + qp2 + ` RTS sq-psn \d+ rq-psn \d+`).MatchString(flat) {
		t.Errorf("the detail lacks the peer's PSNs beside the QP's:\n%s", scr)
	}
	if !strings.Contains(flat, "post a receive on the peer QP") {
		t.Errorf("the detail lacks the fix:\n%s", scr)
	}
	s.key("Escape")
	waitScreenLacks(t, s, "(esc back")

	// peer_gone: qp2 destroyed while qp1 still sends to it. The
	// dashboard saw qp2 go after qp1 connected: its peer, gone.
	s.key("Tab")
	s.keys("-l", "destroy qp2")
	s.key("Enter")
	scr = s.waitLong("stuck: rxe0 qp " + qp1 + " peer_gone")
	if want := "peer this host qp " + qp2 + " was destroyed"; !strings.Contains(strings.Join(strings.Fields(scr), " "), want) {
		t.Errorf("the alerts line does not say %q:\n%s", want, scr)
	}
	s.key("Escape")
	s.waitLong("(tab to type)")
	s.key("q")
	s.waitLong("status=0")
}
