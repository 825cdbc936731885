package shell

import (
	"context"
	"strings"

	"github.com/verbscope/verbscope/doctor"
	"github.com/verbscope/verbscope/sysfsmon"
)

func init() {
	var ids strings.Builder
	for _, c := range doctor.Checks {
		ids.WriteString("  " + c.ID + ": " + c.About + "\n")
	}
	register(&command{
		name: "doctor", usage: "doctor [CHECK...]",
		summary: "run the troubleshooting checklist (as `verbscope doctor` does): modules, devices, GIDs, memlock, IRQs, leaks",
		help: `Each check says pass, warn, fail or n/a (with the reason), the values it
looked at and where each came from, and what to do. Without a CHECK all of
them run, mr-qp included (it registers 64 MiB and creates a QP, then
destroys them). The checks:
` + ids.String() + `
examples:
  doctor modules gids
  doctor memlock`,
		pos: []argKind{{name: "check", items: func(*Shell, []string) []Suggestion {
			var out []Suggestion
			for _, c := range doctor.Checks {
				out = append(out, Suggestion{Text: c.ID, Description: c.Title})
			}
			return out
		}}},
		run: runDoctor,
	})
}

// runDoctor runs the checks named (all without a name) on this host. It
// reads sysfs, procfs and RDMA netlink and opens the devices, without the
// session's lock: it touches none of the session's objects.
func runDoctor(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, len(doctor.Checks)); err != nil {
		return Result{}, err
	}
	sel, err := doctor.Select(a.pos)
	if err != nil {
		return Result{}, &Error{What: strings.TrimPrefix(err.Error(), "doctor: "), Fix: "`help doctor` lists the checks"}
	}
	fsys, err := sysfsmon.NewDefaultFS()
	if err != nil {
		return Result{}, &Error{What: "doctor: " + err.Error(), Err: err}
	}
	var ids []string
	for _, c := range sel {
		ids = append(ids, c.ID)
	}
	var rep *doctor.Report
	s.waitUnlocked("", "doctor: running "+strings.Join(ids, ", "), func() {
		rep = doctor.Run(doctor.Gather(fsys, fsys.IsLive(), doctor.Options{Needs: doctor.NeedsOf(sel)}), sel)
	})
	var b strings.Builder
	if err := doctor.RenderText(&b, rep); err != nil {
		return Result{}, err
	}
	data := make([]map[string]any, 0, len(rep.Checks))
	for _, c := range rep.Checks {
		data = append(data, map[string]any{"id": c.ID, "verdict": string(c.Verdict), "summary": c.Summary})
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
}
