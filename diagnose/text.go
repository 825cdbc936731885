package diagnose

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/verbscope/verbscope/inspect"
)

// Lines is the verdict as a person reads it: the summary, the QP's
// state and owner, the evidence, the peer, the fix. The CLI prints them;
// the dashboard's QP detail and the shell's `why` can show the same.
func (v *Verdict) Lines() []string {
	out := []string{v.Summary(),
		fmt.Sprintf("  %s, %s, owner %s[%d], since %s", v.State, v.Certainty, v.Comm, v.PID, v.Since.Format("15:04:05"))}
	out = append(out, "  evidence:")
	for _, e := range v.Evidence {
		out = append(out, "    - "+e)
	}
	if p := v.Peer; p != nil {
		gone := ""
		if p.Gone {
			gone = fmt.Sprintf(", destroyed at %s", p.GoneAt.Format("15:04:05"))
		}
		out = append(out, fmt.Sprintf("  peer: %s qp %d on %s: %s, sq-psn %d, rq-psn %d, remote qp %d, owner %s[%d]%s",
			p.Host, p.LQPN, p.Dev, p.State, p.SQPSN, p.RQPSN, p.RQPN, p.Comm, p.PID, gone))
	}
	out = append(out, "  fix:")
	for _, f := range v.Fix {
		out = append(out, "    - "+f)
	}
	return out
}

// WriteText prints the verdicts for a person, a blank line between two;
// none says that nothing (or only, the one QP asked about) needs a look.
func WriteText(w io.Writer, vs []Verdict, only *inspect.Key) error {
	if len(vs) == 0 {
		what := "no QP"
		if only != nil {
			what = only.String()
		}
		_, err := fmt.Fprintf(w, "%s needs a look: nothing stuck, failed or left by an exited process\n", what)
		return err
	}
	var b strings.Builder
	for i := range vs {
		if i > 0 {
			b.WriteByte('\n')
		}
		for _, l := range vs[i].Lines() {
			b.WriteString(l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON prints the verdicts as one indented JSON list, [] for none
// (verbscope diagnose -j).
func WriteJSON(w io.Writer, vs []Verdict) error {
	if vs == nil {
		vs = []Verdict{}
	}
	b, err := json.MarshalIndent(vs, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
