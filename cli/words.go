package cli

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/verbscope/verbscope/view"
)

// The one argument grammar of the view commands (devices, ports, gids,
// irqs, counters, res, doctor): flags anywhere, before or after the
// words; iproute2's output flags (-j, -p, -d, -dd) with their long forms;
// the words parsed by view.ParseCommandWords ("rxe0/1", "dev rxe0",
// "state=RTS"); a device that does not exist refused with the ones that
// do. A command opts in with command.FlagsAnywhere.

// outFlags are iproute2's output flags (ip(8), rdma(8)): -j JSON, -p
// pretty JSON, -d details and -dd (or -d -d) also the driver's.
type outFlags struct {
	json, pretty bool
	details      detailLevel
}

func addOutFlags(fs *flag.FlagSet) *outFlags {
	o := &outFlags{}
	for _, name := range []string{"j", "json"} {
		fs.BoolVar(&o.json, name, false, "print JSON for scripts")
	}
	for _, name := range []string{"p", "pretty"} {
		fs.BoolVar(&o.pretty, name, false, "with -j: indent the JSON")
	}
	for _, name := range []string{"d", "details"} {
		fs.Var(&o.details, name, "show details; twice (-dd) also the driver's")
	}
	fs.Var(driverLevel{&o.details}, "dd", "show details and the driver's (as -d -d)")
	return o
}

// detailLevel counts -d flags, as iproute2 does.
type detailLevel int

func (l *detailLevel) String() string {
	if l == nil {
		return "0"
	}
	return strconv.Itoa(int(*l))
}

func (l *detailLevel) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("-d takes no value (give it twice, -dd, for the driver's details)")
	}
	if on {
		*l++
	}
	return nil
}

func (l *detailLevel) IsBoolFlag() bool { return true }

// driverLevel is -dd: the level at least 2.
type driverLevel struct{ l *detailLevel }

func (d driverLevel) String() string   { return "" }
func (d driverLevel) IsBoolFlag() bool { return true }
func (d driverLevel) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("-dd takes no value")
	}
	if on {
		*d.l = max(*d.l+2, 2)
	}
	return nil
}

// intervalFlag is --interval: a Go duration, checked when parsed so a
// bad one is named as such wherever it stands.
type intervalFlag time.Duration

func addIntervalFlag(fs *flag.FlagSet, usage string) *time.Duration {
	var d time.Duration
	fs.Var((*intervalFlag)(&d), "interval", usage)
	return &d
}

func (f *intervalFlag) String() string { return time.Duration(*f).String() }

func (f *intervalFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration; write it like 500ms, 2s or 1m")
	}
	if d <= 0 {
		return errors.New("must be positive, like 500ms, 2s or 1m")
	}
	*f = intervalFlag(d)
	return nil
}

// parseInterspersed parses flags wherever they stand among the words, as
// in "verbscope res qp -j", which the flag package alone stops at; "--"
// ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			rest = append(rest, args[1:]...)
			break
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
	return rest, nil
}

// parseWords parses a view's words for rows of a kind; a mistake is a
// usage error (exit status 2).
func parseWords(kind string, words []string) (view.Filters, error) {
	flt, err := view.ParseCommandWords(kind, words)
	if err != nil {
		return nil, usageErrorf("%s", strings.TrimPrefix(err.Error(), "view: filter: "))
	}
	return flt, nil
}

// sayNoMatch tells on stderr that valid filters (and the flags that
// select, like --errors) left nothing, so an empty output does not look
// like a failure to read; the exit status stays 0.
func sayNoMatch(env *Env, cmd, what string, n int, flt view.Filters, flags ...string) {
	conds := flags
	if len(flt) > 0 {
		conds = append([]string{flt.String()}, flags...)
	}
	if n == 0 && len(conds) > 0 {
		fmt.Fprintf(env.Stderr, "verbscope %s: no %s matches %s\n", cmd, what, strings.Join(conds, " "))
	}
}
