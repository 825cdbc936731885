package diagnose

import "fmt"

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
