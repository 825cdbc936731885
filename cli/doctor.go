package cli

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/verbscope/verbscope/doctor"
	"github.com/verbscope/verbscope/sysfsmon"
)

func init() { register("doctor", doctorCmd) }

func doctorCmd() *command {
	return &command{
		Name:          "doctor",
		Summary:       "run the RDMA troubleshooting checklist: each check with a verdict, its evidence and the fix",
		Usage:         "[flags]",
		Help:          "Checks, in order (ids for --only):\n" + doctorChecks() + doctorHelp,
		FlagsAnywhere: true,
		Setup:         doctorSetup,
	}
}

// doctorChecks lists the checks for the help, one a line.
func doctorChecks() string {
	var checks strings.Builder
	for _, c := range doctor.Checks {
		fmt.Fprintf(&checks, "  %-13s %s\n", c.ID, c.About)
	}
	return checks.String()
}

// doctorHelp is the text of `verbscope doctor --help` after the list of
// checks.
var doctorHelp = helpText("doctor")

// doctorSetup declares the flags of `verbscope doctor` and returns the
// command.
func doctorSetup(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
	o := addViewFlags(fs)
	root := fs.String("root", "/", "read /dev/infiniband, /etc/libibverbs.d and dpkg's database under this `folder`")
	only := fs.String("only", "", "run only these checks: `ids` separated by commas")
	noProbe := fs.Bool("no-probe", false, "do not register memory or create a QP (mr-qp is then n/a)")
	watch := fs.Duration("watch", 0, "first watch every process's objects for this `duration` (2m) and report those that only grew (the growth check)")
	mrMiB := fs.Int("mr-size", doctor.DefaultMRSize>>20, "register this many `MiB` in the probe; the memlock check measures the limit against it")
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usageErrorf("doctor takes no arguments, got %q", strings.Join(args, " "))
		}
		var ids []string
		for id := range strings.SplitSeq(*only, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		sel, err := doctor.Select(ids)
		if err != nil {
			return usageErrorf("%s", strings.TrimPrefix(err.Error(), "doctor: "))
		}
		if *mrMiB <= 0 || *mrMiB > 1<<20 {
			return usageErrorf("--mr-size %d: give a size in MiB, from 1 to 1048576", *mrMiB)
		}
		if *watch < 0 || *watch > 0 && *watch < 5*time.Second {
			return usageErrorf("--watch %s: give at least 5s (a trend needs several readings)", *watch)
		}
		fsys, err := sysfsmon.NewFS(o.sys, o.proc, sysfsmon.WithHostRoot(*root))
		if err != nil {
			return err
		}
		live := fsys.IsLive() && filepath.Clean(*root) == "/"
		opts := doctor.Options{Needs: doctor.NeedsOf(sel), MRSize: *mrMiB << 20, Watch: *watch, WatchEvery: max(time.Second, *watch/60),
			Progress: func(msg string) { fmt.Fprintf(env.Stderr, "doctor: %s...\n", msg) }}
		if *noProbe {
			opts.NoProbe = "skipped (--no-probe)"
		}
		rep := doctor.Run(doctor.Gather(fsys, live, opts), sel)
		if o.json {
			err = doctor.RenderJSON(env.Stdout, rep, o.pretty)
		} else {
			err = doctor.RenderText(env.Stdout, rep)
		}
		if err != nil {
			return err
		}
		if !rep.OK() {
			return exitError{Code: 1}
		}
		return nil
	}
}
