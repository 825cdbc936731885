package export

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"
)

// serverLimits are the server's timeouts, node_exporter's conventions
// plus the ones it leaves unset: a goroutine and its buffers per
// connection are what a slow or idle client holds, so each wait has an
// end.
type serverLimits struct {
	readHeader, read, write, idle time.Duration
}

// limits are the values, and why (tests shorten them):
var limits = serverLimits{
	// The TLS handshake and the request line and headers: a client that
	// trickles them in (slowloris) is cut off after 10 s, far more than
	// a scraper on any network needs.
	readHeader: 10 * time.Second,
	// The whole request; ours have no body, so a little room after the
	// headers.
	read: 15 * time.Second,
	// The answer, from the end of the headers to the last byte written:
	// a client that never reads is dropped after a minute, Prometheus's
	// longest usual scrape_timeout and time for a 10,000-QP /api/v1/qps
	// (a few MB) to cross a slow link.
	write: time.Minute,
	// A keep-alive connection without a request: above the usual
	// 1-minute scrape interval, so a Prometheus keeps its connection
	// between scrapes, and an abandoned one closes.
	idle: 2 * time.Minute,
}

// maxInFlight is how many requests /metrics, and /api/v1/qps, serve at
// once (promhttp's MaxRequestsInFlight); the next get 503. An HA pair of
// Prometheus, a fleet view and a person fit many times over.
const maxInFlight = 10

// newHandler serves the exporter's pages: /metrics (c with the Go runtime's
// and the process's own metrics), /api/v1/qps (the per-QP detail as JSON,
// its hidden fields only as api says) and a landing page at / linking
// both. It only reads: nothing it serves changes a counter or a mode.
func newHandler(c *Collector, api APIOptions) (http.Handler, error) {
	reg := prometheus.NewRegistry()
	for _, col := range []prometheus.Collector{c, collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := reg.Register(col); err != nil {
			return nil, fmt.Errorf("export: register metrics: %w", err)
		}
	}
	landing, err := web.NewLandingPage(web.LandingConfig{
		Name:        "verbscope export",
		Description: "The RDMA devices, ports, counters and QP states of this host, for Prometheus.",
		Version:     c.opts.Version,
		Links: []web.LandingLinks{
			{Address: "/metrics", Text: "Metrics", Description: "The Prometheus exposition."},
			{Address: "/api/v1/qps", Text: "QPs", Description: "Every QP as `verbscope res qp -j` shows it, with its state history (JSON); " +
				"?filter=state=ERR+type=RC, ?limit=N and ?after=DEV:LQPN choose them. PSNs, rqpn and traced attributes only to authenticated clients."},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("export: landing page: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// One invalid series (an odd driver string) must not hide the rest.
		ErrorHandling:       promhttp.ContinueOnError,
		MaxRequestsInFlight: maxInFlight,
	}))
	mux.Handle("/api/v1/qps", limitInFlight(&qpAPI{c: c, auth: api}, maxInFlight))
	mux.Handle("/", landing)
	return mux, nil
}

// serve serves h on l until ctx ends, with TLS and basic auth as the
// exporter-toolkit web config file says (node_exporter's
// --web.config.file; empty: plain HTTP).
func serveHTTP(ctx context.Context, l net.Listener, h http.Handler, webConfig string, log *slog.Logger) error {
	if webConfig != "" {
		if err := web.Validate(webConfig); err != nil {
			return fmt.Errorf("export: web config %s: %w", webConfig, err)
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: limits.readHeader, ReadTimeout: limits.read,
		WriteTimeout: limits.write, IdleTimeout: limits.idle}
	done := make(chan error, 1)
	go func() {
		done <- web.Serve(l, srv, &web.FlagConfig{
			WebListenAddresses: &[]string{l.Addr().String()},
			WebConfigFile:      &webConfig,
		}, log)
	}()
	select {
	case err := <-done:
		return fmt.Errorf("export: serve %s: %w", l.Addr(), err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		if serr := <-done; err == nil && !errors.Is(serr, http.ErrServerClosed) {
			err = serr
		}
		if err != nil {
			return fmt.Errorf("export: stop serving %s: %w", l.Addr(), err)
		}
		return ctx.Err()
	}
}

// limitInFlight serves at most n requests of h at once and answers 503
// to the rest, as promhttp's MaxRequestsInFlight does for /metrics.
func limitInFlight(h http.Handler, n int) http.Handler {
	sem := make(chan struct{}, n)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
			h.ServeHTTP(w, r)
		default:
			http.Error(w, fmt.Sprintf("export: %d requests are served already: try again", n), http.StatusServiceUnavailable)
		}
	})
}
