package ui

import (
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// verdictsMsg is one reading's verdicts (Sources.Verdicts, a Feed: the
// diagnosis ran on its own goroutine, so the Cmd only receives).
type verdictsMsg struct{ v Verdicts }

// verdictOf is the latest verdict on the QP k, nil when it needs no look.
func (c *common) verdictOf(k inspect.Key) *diagnose.Verdict {
	for i := range c.verdicts.List {
		if v := &c.verdicts.List[i]; v.Key() == k {
			return v
		}
	}
	return nil
}

// stalledVerdict says whether a verdict is on a QP that waits (in RTS
// or SQD) rather than one that failed or outlived its process: those
// have alerts of their own.
func stalledVerdict(v *diagnose.Verdict) bool {
	return !v.Failed() && v.Cause != diagnose.CauseOwnerExited
}

// stuckAlert names the first stuck QP's cause ("stuck: rxe0 qp 17 rnr
// (peer hostb qp 17 has no receive posted)"); "" when the diagnosis
// judged none stuck.
func (c *common) stuckAlert() string {
	var first *diagnose.Verdict
	n := 0
	for i := range c.verdicts.List {
		if v := &c.verdicts.List[i]; stalledVerdict(v) {
			if first == nil {
				first = v
			}
			n++
		}
	}
	if first == nil {
		return ""
	}
	s := "stuck: " + view.Printable(first.Summary())
	if n > 1 {
		s += " (+" + strconv.Itoa(n-1) + " more)"
	}
	return s
}

// causeCounts is the QPs that need a look counted by cause, in
// diagnose.Causes's order: "rnr 2  peer_gone 1"; "" when none.
func (c *common) causeCounts() string {
	counts := map[diagnose.Cause]int{}
	for _, v := range c.verdicts.List {
		counts[v.Cause]++
	}
	var parts []string
	for _, cause := range diagnose.Causes {
		if n := counts[cause]; n > 0 {
			parts = append(parts, string(cause)+" "+strconv.Itoa(n))
		}
	}
	return strings.Join(parts, "  ")
}

// verdictLines open a QP's detail: the cause and how sure, the evidence,
// the fix, each labelled as the detail's fields are.
func verdictLines(th *themes.Theme, v *diagnose.Verdict) []string {
	slot := themes.SlotWarn
	if !stalledVerdict(v) {
		slot = themes.SlotError
	}
	label := func(s string) string { return th.Render(themes.SlotHeader, padTo(s, 12)) }
	out := []string{label("verdict") + th.Render(slot, string(v.Cause)) + " (" + string(v.Certainty) + "): " + view.Printable(v.Why)}
	list := func(name string, items []string) {
		for i, e := range items {
			l := label("")
			if i == 0 {
				l = label(name)
			}
			out = append(out, l+"- "+view.Printable(e))
		}
	}
	list("evidence", v.Evidence)
	if len(v.Candidates) > 0 {
		nums := make([]string, len(v.Candidates))
		for i, n := range v.Candidates {
			nums[i] = strconv.FormatUint(uint64(n), 10)
		}
		out = append(out, label("candidates")+"qp "+strings.Join(nums, ", "))
	}
	list("fix", v.Fix)
	return append(out, "")
}

// peerPSNs is the peer's side of the PSNs field: "│ peer hostb qp 17
// RTS  sq-psn 5  rq-psn 9", so the two ends read side by side.
func peerPSNs(th *themes.Theme, p *diagnose.PeerQP) string {
	if p == nil {
		return ""
	}
	st := p.State
	if p.Gone {
		st = "destroyed (was " + st + ")"
	}
	return th.Render(themes.SlotDim, "  │  ") + view.Printable("peer "+p.Host+" qp "+strconv.FormatUint(uint64(p.LQPN), 10)+" "+st) +
		"  sq-psn " + strconv.FormatUint(uint64(p.SQPSN), 10) + "  rq-psn " + strconv.FormatUint(uint64(p.RQPSN), 10)
}
