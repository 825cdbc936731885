package ui

import (
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/themes"
)

// modifyLines show a traced modify (verbscope trace's eBPF events) under
// its history entry: who made it, what it set, and for a failed one the
// errno and why.
func modifyLines(th *themes.Theme, im *inspect.Modify) []string {
	md := im.View()
	who := "    " + md.Process() + " modify"
	if md.To != "" {
		who += " → " + md.To
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
	if set := md.SetText(); set != "" {
		out = append(out, th.Render(themes.SlotDim, "      "+set))
	}
	return out
}
