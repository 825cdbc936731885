package fleet

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/verbscope/verbscope/view"
)

// WriteText prints the rows as a table, one host a line.
func WriteText(w io.Writer, hosts []Host) error {
	if len(hosts) == 0 {
		_, err := fmt.Fprintln(w, "no hosts: Prometheus has no target of this job (check --job and its scrape_configs)")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tUP\tDEVICES\tPORTS UP/DOWN\tQPS BY STATE\tFAILED\tSTUCK\tTO ERR\tERRORS/S\tALERTS")
	for _, h := range hosts {
		up := "up"
		if !h.Up {
			up = "DOWN"
		}
		qps := h.QPsByState()
		if len(qps) == 0 {
			qps = []string{"-"}
		}
		alerts := strings.Join(h.Alerts, ",")
		if len(h.Pending) > 0 {
			if alerts != "" {
				alerts += " "
			}
			alerts += "(pending: " + strings.Join(h.Pending, ",") + ")"
		}
		if len(h.Failing) > 0 {
			if alerts != "" {
				alerts += " "
			}
			alerts += "collectors failing: " + strings.Join(h.Failing, ",")
		}
		if alerts == "" {
			alerts = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d/%d\t%s\t%d\t%d\t%d\t%.3g\t%s\n", view.Printable(h.Instance), up, h.Devices, h.PortsUp, h.PortsDown,
			strings.Join(qps, " "), h.Failed, h.Stuck, h.ToErr, h.ErrorRate, view.Printable(alerts))
	}
	return tw.Flush()
}
