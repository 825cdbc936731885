package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/verbscope/verbscope/internal/privfile"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/view"
)

// recordInfo prints what a recording holds.
func recordInfo(ctx context.Context, env *Env, args []string, asJSON bool) error {
	if len(args) != 1 {
		return usageErrorf("record info takes one FILE, got %d arguments", len(args))
	}
	r, err := rec.Open(ctx, args[0])
	if err != nil {
		return err
	}
	defer r.Close()
	in, err := r.Info(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(in)
	}
	w := env.Stdout
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
	return nil
}

type exportFormat struct {
	json, csv, force bool
	perfetto         string
}

// recordExport writes a recording out in one format.
func recordExport(ctx context.Context, env *Env, args []string, f exportFormat) error {
	if len(args) != 1 {
		return usageErrorf("record export takes one FILE, got %d arguments", len(args))
	}
	n := 0
	for _, on := range []bool{f.json, f.csv, f.perfetto != ""} {
		if on {
			n++
		}
	}
	if n != 1 {
		return usageErrorf("record export: give one of --csv, -j or --perfetto FILE")
	}
	r, err := rec.Open(ctx, args[0])
	if err != nil {
		return err
	}
	defer r.Close()
	switch {
	case f.perfetto == "-":
		return r.Perfetto(ctx, env.Stdout)
	case f.perfetto != "":
		out, err := privfile.Create(f.perfetto, f.force)
		if err != nil {
			return fmt.Errorf("record export: %w", err)
		}
		if err := r.Perfetto(ctx, out); err != nil {
			out.Close()
			os.Remove(f.perfetto)
			return err
		}
		return out.Close()
	}
	lts, err := r.Lifetimes(ctx)
	if err != nil {
		return err
	}
	trs, err := r.Transitions(ctx)
	if err != nil {
		return err
	}
	if f.json {
		als, err := r.Alerts(ctx)
		if err != nil {
			return err
		}
		return json.NewEncoder(env.Stdout).Encode(map[string]any{"lifetimes": lts, "transitions": trs, "alerts": als})
	}
	return exportCSV(env.Stdout, lts, trs)
}

// exportCSV writes the lifetimes, then the transitions, as rows of one
// table (row says which): for pandas and spreadsheets. The recording's
// text goes through csvCell.
func exportCSV(out io.Writer, lts []rec.Lifetime, trs []rec.Transition) error {
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
