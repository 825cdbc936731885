package cli

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"time"

	"github.com/verbscope/verbscope/fleet"
)

func init() { register("fleet", fleetCmd) }

func fleetCmd() *command {
	return &command{
		Name:    "fleet",
		Summary: "every host Prometheus scrapes verbscope export on, one row each, worst first",
		Usage:   "--prometheus URL [--job verbscope] [-j]",
		Help:    helpText("fleet"),
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			url := fs.String("prometheus", "", "the Prometheus server's `URL`")
			job := fs.String("job", "verbscope", "the scrape job of the exporters")
			jsonOut := fs.Bool("j", false, "print JSON")
			timeout := fs.Duration("timeout", 30*time.Second, "give up on Prometheus after this long")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageErrorf("fleet takes no arguments, only flags")
				}
				if *url == "" {
					return usageErrorf("--prometheus URL is required (the server that scrapes verbscope export)")
				}
				c := &fleet.Client{URL: *url, HTTP: &http.Client{Timeout: *timeout}}
				hosts, err := fleet.Rows(ctx, c, *job)
				if err != nil {
					return err
				}
				if *jsonOut {
					enc := json.NewEncoder(env.Stdout)
					enc.SetIndent("", "  ")
					return enc.Encode(hosts)
				}
				return fleet.WriteText(env.Stdout, hosts)
			}
		},
	}
}
