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
const doctorHelp = `
Each check says pass, warn, fail or n/a (with the reason), the values it
looked at and where each came from (a file, a netlink dump, a verbs call),
and what to do. mr-qp changes the system for a moment: it opens each device,
registers memory and creates a QP, then destroys them (--no-probe skips it).
Run it as the user whose programs fail: permissions, the locked-memory limit
and the probe depend on who runs it.

Exit status: 0 when no check failed (warnings and n/a alone exit 0), 1 when
at least one failed (or the --sysfs/--procfs folders do not exist), 2 for a
usage error.

JSON (-j): one object: host {kernel_release, rdma_core, rdma_core_source,
cpus, uid, live}, checks [{id, title, verdict ("pass", "warn", "fail" or
"n/a"), summary, evidence [{what, value, source, verdict}], fix [...]}],
summary {pass, warn, fail, na, failed [ids], warned [ids]}. Evidence that
was judged has a verdict (pass, warn or fail), context has none; lists are
never null.

--watch D first reads every process's objects for D (a reading every
second, or D/60) and the growth check names each process whose objects of
a kind only grew all that time by 10 or more, with its slope: a leak
suspect. The memlock check looks at every process holding RDMA objects
too: the bytes its MRs pin against its own RLIMIT_MEMLOCK.

With --sysfs/--procfs/--root on a recorded tree only the file checks run;
libibverbs, netlink and the probe describe this host, so those checks are
n/a.

This host's kernel may have no RDMA at all; then run it in the lab VM:
  verbscope lab -- verbscope doctor

Examples:
  verbscope doctor
  verbscope doctor --only modules,ports,mr-qp
  verbscope doctor -j | jq -r '.checks[] | select(.verdict=="fail") | .fix[]'
  verbscope doctor --mr-size 1024
  verbscope doctor --watch 2m --only growth,memlock`

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
