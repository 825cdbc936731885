package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/verbscope/verbscope/lab"
)

func init() { register("lab", labCmd) }

func labCmd() *command {
	return &command{
		Name:    "lab",
		Summary: "boot a Debian kernel with Soft-RoCE (rxe0) in qemu and run a command or a shell there",
		Usage:   "[flags] [-- COMMAND...]",
		Help:    labHelp,
		Setup:   labSetup,
	}
}

// labSetup declares the flags of `verbscope lab` and returns the
// command.
func labSetup(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
	cache := fs.String("cache", lab.DefaultCacheDir(), "`folder` for the guest kernel and initramfs")
	kernel := fs.String("kernel", os.Getenv(lab.KernelEnv), "guest `kernel`: 6.1 (the default) or 6.12")
	accel := fs.String("accel", "", "`kvm` or tcg; empty probes once whether KVM boots the guest")
	cpus := fs.Int("cpus", 2, "vCPUs per VM (one each with --pair)")
	mem := fs.Int("mem", 2048, "guest memory in `MiB`")
	timeout := fs.Duration("timeout", 15*time.Minute, "stop the VM after this `long`, boot included")
	share := fs.String("share", "", "host `folder` mounted read-write at /mnt/host")
	script := fs.String("f", "", "run this sh script `file` instead of a command")
	pair := fs.Bool("pair", false, "boot two VMs joined by a wire and run -a and -b on them")
	cmdA := fs.String("a", "", "with --pair: the `command` for host a (10.0.1.1)")
	cmdB := fs.String("b", "", "with --pair: the `command` for host b (10.0.1.2)")
	prepare := fs.Bool("prepare", false, "only download and build the lab's cache, then say where it is")
	interactive := fs.Bool("i", false, "attach this terminal to the command (for programs that need a TTY)")
	verbose := fs.Bool("v", false, "also print the guest's boot log")
	return func(ctx context.Context, args []string) error {
		command := strings.Join(args, " ")
		if *script != "" {
			if command != "" {
				return usageErrorf("give a command or -f FILE, not both")
			}
			data, err := os.ReadFile(*script)
			if err != nil {
				return err
			}
			command = string(data)
		}
		if *pair && (*cmdA == "" || *cmdB == "" || command != "") {
			return usageErrorf("--pair needs -a COMMAND and -b COMMAND and no other command")
		}
		if !*pair && (*cmdA != "" || *cmdB != "") {
			return usageErrorf("-a and -b go with --pair")
		}
		self, err := os.Executable()
		if err != nil {
			return err
		}
		opts := lab.Options{
			CPUs: *cpus, MemMB: *mem, Accel: *accel, Timeout: *timeout,
			Share: *share, Bin: []string{self}, Out: env.Stdout, Log: env.Stderr, Verbose: *verbose,
		}
		l, err := lab.New(ctx, &lab.Cache{Dir: *cache, Kernel: *kernel, Log: env.Stderr}, opts)
		if err != nil {
			return err
		}
		var code int
		switch {
		case *prepare:
			fmt.Fprintf(env.Stdout, "lab cache: %s (accelerator %s)\n", *cache, l.Accel())
			return nil
		case *pair:
			code, err = l.RunPair(ctx, *cmdA, *cmdB)
		case command == "" || *interactive:
			return l.Shell(ctx, command)
		default:
			code, err = l.Run(ctx, command)
		}
		if err != nil {
			return err
		}
		if code != 0 {
			return exitError{Code: code}
		}
		return nil
	}
}

// labHelp is the text of `verbscope lab --help` after the flags.
var labHelp = helpText("lab")
