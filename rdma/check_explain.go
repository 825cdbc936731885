package rdma

import (
	"fmt"
	"strings"
)

// Explain renders the verdict for a learner: the answer first, then what
// the step is for and what it takes, then every finding with why and how
// to fix it, each missing or refused attribute explained. It is plain
// text (the shell and the dashboard indent and colour it as they like).
func (v *Verdict) Explain() string {
	var b strings.Builder
	step := fmt.Sprintf("%s QP, %s→%s", v.Type, v.From, v.To)
	switch {
	case !v.Known && v.Errno == 0:
		fmt.Fprintf(&b, "%s: verbscope cannot predict the kernel's answer.\n", step)
	case v.Errno == 0:
		fmt.Fprintf(&b, "%s: the kernel will accept this modify.\n", step)
	default:
		fmt.Fprintf(&b, "%s: the kernel will refuse this modify with %s.\n", step, ErrnoText(v.Errno))
	}
	// The step's purpose first: knowing what RTR is for explains most of
	// what it requires.
	if v.Rule.Valid && v.Rule.Note != "" {
		fmt.Fprintf(&b, "%s%s.\n", strings.ToUpper(v.Rule.Note[:1]), v.Rule.Note[1:])
	}
	fmt.Fprintf(&b, "Mask: %s\n", v.Mask)
	// uverbs may rewrite the mask (AV adds PORT, XRC drops bits); show
	// what the table really judged.
	if v.KernelMask != v.Mask {
		fmt.Fprintf(&b, "Mask as the kernel checks it: %s\n", v.KernelMask)
	}
	if v.Rule.Valid {
		fmt.Fprintf(&b, "%s→%s on %s requires: %s\n", v.TableFrom, v.TableTo, v.Type, namesOrNone(v.Rule.Required, "nothing but STATE"))
		fmt.Fprintf(&b, "%s→%s on %s also accepts: %s\n", v.TableFrom, v.TableTo, v.Type, namesOrNone(v.Rule.Optional, "nothing else"))
	}
	// Findings come in call order. The first error is where the kernel
	// stops; later errors are still shown, because a learner fixing one
	// problem at a time would otherwise meet them one EINVAL at a time.
	decisive := v.Decisive()
	for i := range v.Findings {
		f := &v.Findings[i]
		mark := map[Severity]string{SevError: "✗", SevWarning: "!", SevNote: "·"}[f.Severity]
		fmt.Fprintf(&b, "\n%s [%s] %s", mark, f.Stage, f.Problem)
		if f == decisive {
			fmt.Fprintf(&b, " (the kernel stops here: %s)", ErrnoText(f.Errno))
		} else if f.Severity == SevError {
			b.WriteString(" (would fail too)")
		}
		b.WriteString("\n")
		// Missing and refused attributes get a line each: the
		// learner needs to know what DEST_QPN is to fill it in.
		if f.Rule == "table.missing" || f.Rule == "table.not-allowed" {
			for _, h := range ExplainMask(f.Attrs) {
				fmt.Fprintf(&b, "    %-19s %s\n", h.Name, h.What)
			}
		}
		if f.Why != "" {
			fmt.Fprintf(&b, "  why: %s\n", f.Why)
		}
		if f.Fix != "" {
			fmt.Fprintf(&b, "  fix: %s\n", f.Fix)
		}
	}
	return b.String()
}

// namesOrNone lists a mask's names, or says none instead of "0".
func namesOrNone(m QPAttrMask, none string) string {
	if m == 0 {
		return none
	}
	return strings.Join(m.Names(), ", ")
}
