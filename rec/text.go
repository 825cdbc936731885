package rec

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/verbscope/verbscope/view"
)

// WriteText writes in as `record info` shows it: the file, the host,
// the span, the readings, the objects and the gaps, a line each (a line
// per gap).
func (in Info) WriteText(w io.Writer) {
	const stamp = "2006-01-02 15:04:05"
	// The file's words are whoever wrote it's: Printable, so none of
	// them reaches the terminal as an escape sequence.
	p := view.Printable
	fmt.Fprintf(w, "recording  %s (%s, schema %d)\n", p(in.Path), view.Bytes(in.Size).String(), in.Schema)
	fmt.Fprintf(w, "host       %s · kernel %s · rdma-core %s · devices %s\n", p(in.Host["hostname"]), p(in.Host["kernel"]),
		p(in.Host["rdma_core"]), p(strings.Join(in.Devices(), " ")))
	fmt.Fprintf(w, "span       %s → %s (%s)\n", in.From.Format(stamp), in.To.Format(stamp), in.To.Sub(in.From).Round(time.Second))
	fmt.Fprintf(w, "readings   %d of the objects, %d of sysfs, %d keyframes, every %s\n", in.Readings["res"], in.Readings["sys"], in.Keyframes, in.Interval())
	fmt.Fprintf(w, "objects    %d · %d QP transitions · %d alerts\n", in.Objects, in.Transitions, in.Alerts)
	if len(in.Gaps) == 0 {
		fmt.Fprintln(w, "gaps       none")
	}
	for i, g := range in.Gaps {
		label := ""
		if i == 0 {
			label = "gaps"
		}
		fmt.Fprintf(w, "%-10s %s %s: %s\n", label, g.Time.Format(stamp), p(g.What), p(g.Detail))
	}
	if in.MoreGaps > 0 {
		fmt.Fprintf(w, "%-10s and %d more (record info -j, or the gaps table)\n", "", in.MoreGaps)
	}
}

// WriteCSV writes the lifetimes, then the transitions, as rows of one
// table (row says which): `record export --csv`, for pandas and
// spreadsheets. The recording's text goes through csvCell.
func WriteCSV(out io.Writer, lts []Lifetime, trs []Transition) error {
	w := csv.NewWriter(out)
	w.Write([]string{"row", "start", "end", "dev", "kind", "num", "pid", "comm", "qp_type", "state", "ended", "by_pid", "by_comm", "mask", "attrs"})
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	u := func(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
	for _, l := range lts {
		w.Write([]string{"lifetime", ts(l.Start), ts(l.End), csvCell(l.Dev), csvCell(l.Kind), u(l.Num), u(l.PID), csvCell(l.Comm), csvCell(l.Type), csvCell(l.State),
			strconv.FormatBool(l.Ended), "", "", "", ""})
	}
	for _, x := range trs {
		by := ""
		if x.ByPID != nil {
			by = strconv.FormatInt(*x.ByPID, 10)
		}
		w.Write([]string{"transition", ts(x.Time), ts(x.Time), csvCell(x.Dev), "qp", u(x.QPN), u(x.PID), csvCell(x.Comm), "", csvCell(x.State),
			strconv.FormatBool(x.Gone), by, csvCell(x.ByComm), csvCell(x.Mask), csvCell(string(x.Attrs))})
	}
	w.Flush()
	return w.Error()
}

// csvCell is a recording's text as a CSV cell: Printable, so a comm's
// escape sequences do not reach the terminal that shows the file, and
// with a ' before a cell a spreadsheet would take for a formula (one
// that begins with = + - or @), so it shows as the text it is.
func csvCell(s string) string {
	s = view.Printable(s)
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}
