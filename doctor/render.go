package doctor

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/verbscope/verbscope/view"
)

// verdictLabel is how the text view prints a verdict.
var verdictLabel = map[Verdict]string{Pass: "PASS", Warn: "WARN", Fail: "FAIL", NA: "N/A "}

// evidenceMark flags the values that made a check warn or fail.
var evidenceMark = map[Verdict]string{Warn: "!", Fail: "x"}

// Line is the evidence as doctor and the dashboard's doctor view print
// it: "x rxe0 port 1 state: 1: DOWN  [/sys/class/infiniband/rxe0/ports/
// 1/state]", its mark first (x failed, ! warned, - context), the source
// in brackets when known. Every part is made safe to print: a leak's
// evidence names a process, whose name is its own choice.
func (e Evidence) Line() string {
	mark := evidenceMark[e.Verdict]
	if mark == "" {
		mark = "-"
	}
	line := mark + " " + view.Printable(e.What) + ": " + view.Printable(e.Value)
	if e.Source != "" {
		line += "  [" + view.Printable(e.Source) + "]"
	}
	return line
}

// FixLines are the check's fixes as doctor, the shell's doctor and the
// dashboard's doctor view print them, each made safe to print: a leak's
// fix names the process that holds the descriptor, and a process picks
// its own name (escape sequences included). RenderJSON keeps the exact
// bytes.
func (r Result) FixLines() []string {
	out := make([]string, len(r.Fix))
	for i, f := range r.Fix {
		out[i] = view.Printable(f)
	}
	return out
}

// RenderText prints the report for people: one line per check with its
// verdict, id and summary; under it the evidence (value, then where it
// came from, in brackets) and the fixes; a summary line at the end.
func RenderText(w io.Writer, r *Report) error {
	var b strings.Builder
	h := r.Host
	head := "verbscope doctor: kernel " + dash(h.Kernel) + ", rdma-core " + dash(h.RDMACore)
	if h.CPUs > 0 {
		head += fmt.Sprintf(", %d CPUs", h.CPUs)
	}
	if h.UID != nil {
		head += fmt.Sprintf(", uid %d", *h.UID)
	}
	if !h.Live {
		head += " (recorded tree)"
	}
	b.WriteString(head + "\n")
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.ID))
	}
	for _, c := range r.Checks {
		fmt.Fprintf(&b, "\n%s  %-*s  %s: %s\n", verdictLabel[c.Verdict], width, c.ID, c.Title, view.Printable(c.Summary))
		for _, e := range c.Evidence {
			b.WriteString("      " + e.Line() + "\n")
		}
		for _, f := range c.FixLines() {
			fmt.Fprintf(&b, "      fix: %s\n", f)
		}
	}
	s := r.Summary
	line := fmt.Sprintf("\ndoctor: %d passed, %d warned, %d failed, %d not applicable", s.Pass, s.Warn, s.Fail, s.NA)
	if len(s.Failed) > 0 {
		line += "; failed: " + strings.Join(s.Failed, ", ")
	}
	if len(s.Warned) > 0 {
		line += "; warned: " + strings.Join(s.Warned, ", ")
	}
	b.WriteString(line + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// RenderJSON prints the report as one JSON object (indented when pretty).
// Keys: host {kernel_release, rdma_core, rdma_core_source, cpus, uid,
// live}, checks [{id, title, verdict, summary, evidence [{what, value,
// source, verdict}], fix []}], summary {pass, warn, fail, na, failed [],
// warned []}. Empty lists are [] rather than null, so scripts can iterate
// without checking.
func RenderJSON(w io.Writer, r *Report, pretty bool) error {
	out := *r
	out.Checks = make([]Result, len(r.Checks))
	for i, c := range r.Checks {
		if c.Evidence == nil {
			c.Evidence = []Evidence{}
		}
		if c.Fix == nil {
			c.Fix = []string{}
		}
		out.Checks[i] = c
	}
	if out.Checks == nil {
		out.Checks = []Result{}
	}
	if out.Summary.Failed == nil {
		out.Summary.Failed = []string{}
	}
	if out.Summary.Warned == nil {
		out.Summary.Warned = []string{}
	}
	var b []byte
	var err error
	if pretty {
		b, err = json.MarshalIndent(out, "", "  ")
	} else {
		b, err = json.Marshal(out)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
