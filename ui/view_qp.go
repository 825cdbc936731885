package ui

import (
	"slices"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/counters"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/themes"
)

// qpSpec is every process's queue pairs (ibv_create_qp(3)); its detail
// is the QP's story (qpDetail).
var qpSpec = objectSpec("qp", "QPs", "every process's queue pairs, as 'rdma resource show' sees them", withOwner(
	col("link", "link", 0, false), col("lqpn", "lqpn", 0, true),
	col("rqpn", "rqpn", 3, true), col("type", "type", 0, false), col("state", "state", 0, false),
	col("rq-psn", "rq-psn", 4, true), col("sq-psn", "sq-psn", 4, true), col("path-mig-state", "mig", 6, false),
	col("pdn", "pdn", 5, true)),
	"qps")

// qpDetail is a QP's story: state history, PSNs and whether they move,
// retries, its process and PD, and — for the shell pane's QPs — its
// CQs, MRs and the legal next steps.
func (v *objectView) qpDetail(row tableRow) []string {
	th := v.c.theme
	ref := row.res
	if ref == nil {
		ref = &resObj{}
	}
	var out []string
	field := func(name, val string) { out = append(out, th.Render(themes.SlotHeader, padTo(name, 12))+val) }
	q := ref.qp
	verdict := v.c.verdictOf(ref.key)
	if verdict != nil {
		out = append(out, verdictLines(th, verdict)...)
	}
	if q != nil {
		state := q.State.String()
		slot := themes.SlotOK
		if q.State.Failed() {
			slot = themes.SlotError
		}
		field("state", th.Render(slot, state)+"  type "+q.Type.String()+"  link "+q.DevName+"/"+itoa(int(q.Port)))
		if q.Attrs.Has(inspect.AttrResRQPN) {
			field("remote QP", itoa(int(q.RQPN)))
		}
		psns := "sq-psn " + itoa(int(q.SQPSN)) + "  rq-psn " + itoa(int(q.RQPSN))
		if verdict != nil && verdict.Peer != nil {
			field("PSNs", psns+peerPSNs(th, verdict.Peer))
		} else {
			field("PSNs", psns+"  "+v.psnsMoving(ref.key))
		}
		out = append(out, ownerLines(th, row)...)
		if q.Attrs.Has(inspect.AttrResPDN) {
			field("PD", "pdn "+itoa(int(q.PDN))+v.pdInfo(q.DevName, q.PDN))
		}
	}
	if q != nil {
		if r := v.retryCounters(q.DevName, q.Port); r != "" {
			field("retries", r+th.Render(themes.SlotDim, "  (the port's, shared by its QPs)"))
		}
	}
	for _, a := range v.c.res.frame.Update.Stuck {
		if a.Key == ref.key {
			out = append(out, th.Render(themes.SlotWarn, "stuck: "+a.Evidence))
		}
	}
	if lines := v.c.res.kernel[ref.key]; len(lines) > 0 {
		out = append(out, "", th.Render(themes.SlotHeader, "the kernel log on this QP"))
		for _, l := range lines {
			out = append(out, "  "+l)
		}
	}
	out = append(out, "", th.Render(themes.SlotHeader, "state history (as the watch saw it; steps between two polls can be missed)"))
	hist := v.c.res.frame.History[ref.key]
	if len(hist) == 0 {
		out = append(out, th.Render(themes.SlotDim, "  none yet"))
	}
	for _, e := range hist {
		st := e.State.String()
		if e.Gone {
			st = "gone (was " + st + ")"
		}
		out = append(out, "  "+e.Time.Format("15:04:05.000")+"  "+padTo(st, 18)+th.Render(themes.SlotDim, "sq-psn "+itoa(int(e.SQPSN))+" rq-psn "+itoa(int(e.RQPSN))))
		if e.Modify != nil {
			out = append(out, modifyLines(th, e.Modify)...)
		}
	}
	if o := v.oursObject(row); o != nil {
		out = append(out, v.sessionLines(o)...)
	}
	return out
}

// psnsMoving says whether the PSNs changed over the QP's history.
func (v *objectView) psnsMoving(k inspect.Key) string {
	for _, a := range v.c.res.frame.Update.Stuck {
		if a.Key == k {
			return v.c.theme.Render(themes.SlotWarn, "still for "+plural(a.Polls, "poll"))
		}
	}
	h := v.c.res.frame.History[k]
	if len(h) >= 2 && (h[len(h)-1].SQPSN != h[0].SQPSN || h[len(h)-1].RQPSN != h[0].RQPSN) {
		return v.c.theme.Render(themes.SlotOK, "moved since first seen")
	}
	return v.c.theme.Render(themes.SlotDim, "(the watch flags a QP whose PSNs stop with sends its peer never accepted)")
}

// retryCounters lists the port's retry and gave-up counters of the
// device's driver that the device has: those the Tracker's stuck
// judgement reads (counters.RetryCounters; the driver as sysfs names
// it, "" before the first sysfs reading: every driver's).
func (v *objectView) retryCounters(dev string, port uint32) string {
	if v.c.res.frame.Snapshot == nil {
		return ""
	}
	driver := ""
	if v.c.sys != nil {
		for _, d := range v.c.sys.u.Devices {
			if d.Name == dev {
				driver = d.Driver
			}
		}
	}
	retrying, gaveUp := counters.RetryCounters(driver)
	names := slices.Concat(retrying, gaveUp)
	slices.Sort(names)
	var parts []string
	for _, pc := range v.c.res.frame.Snapshot.PortCounters {
		if pc.DevName != dev || pc.Port != port {
			continue
		}
		for _, name := range names {
			for _, c := range pc.Counters {
				if c.Name == name {
					parts = append(parts, name+" "+strconv.FormatUint(c.Value, 10))
				}
			}
		}
	}
	return strings.Join(parts, "  ")
}

func (v *objectView) pdInfo(dev string, pdn uint32) string {
	if v.c.res.frame.Snapshot == nil {
		return ""
	}
	for _, p := range v.c.res.frame.Snapshot.PDs {
		if p.DevName == dev && p.PDN == pdn {
			return "  users " + strconv.FormatUint(p.Users, 10) + "  ctxn " + itoa(int(p.CtxN))
		}
	}
	return ""
}

// oursObject finds the shell session's object behind a row.
func (v *objectView) oursObject(row tableRow) *front.Object {
	if v.c.shell == nil || row.OursName == "" {
		return nil
	}
	if o, ok := v.c.shell.Object(row.OursName); ok {
		return &o
	}
	return nil
}

// sessionLines show a shell QP's session side: its CQs and MRs, and the
// state diagram with the legal next steps.
func (v *objectView) sessionLines(o *front.Object) []string {
	th := v.c.theme
	out := []string{"", th.Render(themes.SlotOurs, "in this dashboard's shell: "+o.Name)}
	out = append(out, "  send CQ "+dash(o.SendCQ)+"  recv CQ "+dash(o.RecvCQ)+"  PD "+dash(o.Parent))
	for x := range v.c.shell.Objects() {
		if x.Kind == "mr" && x.Parent == o.Parent {
			out = append(out, "  MR "+x.Name+": "+strconv.FormatUint(x.Length, 10)+" bytes, lkey 0x"+strconv.FormatUint(uint64(x.LKey), 16)+", "+x.Access)
		}
	}
	next := o.NextSteps()
	out = append(out, "", th.Render(themes.SlotHeader, "state machine"), "  "+v.diagram(o.State, next))
	for _, s := range next {
		if s.Legal {
			needs := ""
			if len(s.Needs) > 0 {
				needs = th.Render(themes.SlotDim, "  needs "+strings.Join(s.Needs, ", "))
			}
			out = append(out, th.Render(themes.SlotOK, "  → "+s.To.String())+needs+th.Render(themes.SlotDim, "   (shell: modify "+o.Name+" "+strings.ToLower(s.To.String())+")"))
		}
	}
	var refused []string
	for _, s := range next {
		if !s.Legal {
			refused = append(refused, s.To.String())
		}
	}
	if len(refused) > 0 {
		out = append(out, th.Render(themes.SlotDim, "  refused from here: "+strings.Join(refused, " ")))
	}
	if len(o.History) > 0 {
		out = append(out, "", th.Render(themes.SlotHeader, "modifies in the shell"))
		for _, t := range o.History {
			out = append(out, "  "+t.At.Format("15:04:05.000")+"  "+t.From.String()+" → "+t.To.String())
		}
	}
	return out
}

// diagram draws the QP on the state machine's main line as the lesson
// pane does (rdma.StateDiagram): [its state] in the theme's colour, red
// when failed, and (the legal next steps).
func (v *objectView) diagram(cur rdma.QPState, next []front.Step) string {
	th := v.c.theme
	o := rdma.DiagramOptions{ASCII: th.ASCII, Mark: func(s rdma.QPState, drawn string) string {
		switch {
		case s != cur:
			return drawn
		case s.Failed():
			return th.Render(themes.SlotError, drawn)
		}
		return th.Render(themes.SlotSelected, drawn)
	}}
	for _, n := range next {
		if n.Legal {
			o.Next = append(o.Next, n.To)
		}
	}
	return rdma.StateDiagram(cur, o)[0]
}
