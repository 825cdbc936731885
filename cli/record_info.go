package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/verbscope/verbscope/internal/privfile"
	"github.com/verbscope/verbscope/rec"
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
	in.WriteText(env.Stdout)
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
	return rec.WriteCSV(env.Stdout, lts, trs)
}
