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
		Help: `Asks Prometheus's HTTP API (no agent of ours between hosts) and prints one
row per target of the job: up or down, devices, ports ACTIVE and not, QPs by
state, QPs in ERR or SQE (FAILED), stuck QPs, QPs that moved to ERR since
the exporter started (TO ERR), the error counters' rate over 5 minutes, and
the alerts firing (pending ones in brackets) from the shipped rules
(deploy/verbscope.rules.yml). Hosts that are down come first, then those
with alerts, failed QPs, stuck QPs, ports down and errors.

With -j: a JSON array of hosts, for scripts.

--prometheus may carry basic auth (http://USER:PASSWORD@HOST:9090); errors
show it as USER:xxxxx@. The names of the error counters Prometheus answers
go into further queries only if they are verbscope export's.

Examples:
  verbscope fleet --prometheus http://prometheus:9090
  verbscope fleet --prometheus http://127.0.0.1:9090 --job rdma -j`,
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
