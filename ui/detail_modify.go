package ui

import (
	"strings"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// modifyLines show a traced modify (verbscope trace's eBPF events) under
// its history entry: who made it, what it set, and for a failed one the
// errno and why.
func modifyLines(th *themes.Theme, md *inspect.Modify) []string {
	who := "    " + view.Printable(md.Comm) + "[" + itoa(md.PID) + "] modify"
	if md.HasState {
		who += " → " + md.To.String()
	}
	var out []string
	if md.Ret != 0 {
		out = append(out, th.Render(themes.SlotError, who+" failed: "+md.Errno))
		if md.Check != "" {
			out = append(out, th.Render(themes.SlotDim, "      why: "+md.Check))
		}
	} else {
		out = append(out, who)
	}
	var attrs []string
	for _, a := range md.Attrs {
		if a.Name != "qp_state" {
			attrs = append(attrs, a.Name+"="+a.Value)
		}
	}
	if len(attrs) > 0 {
		out = append(out, th.Render(themes.SlotDim, "      "+strings.Join(attrs, " ")))
	}
	return out
}
