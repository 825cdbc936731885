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

// Handler serves the exporter's pages: /metrics (c with the Go runtime's
// and the process's own metrics), /api/v1/qps (the per-QP detail as JSON)
// and a landing page at / linking both. It only reads: nothing it serves
// changes a counter or a mode.
func Handler(c *Collector) (http.Handler, error) {
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
			{Address: "/api/v1/qps", Text: "QPs", Description: "Every QP as `verbscope res qp -j` shows it, with its state history (JSON)."},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("export: landing page: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// One invalid series (an odd driver string) must not hide the rest.
		ErrorHandling: promhttp.ContinueOnError,
	}))
	mux.HandleFunc("/api/v1/qps", c.serveQPs)
	mux.Handle("/", landing)
	return mux, nil
}

// Serve serves h on l until ctx ends, with TLS and basic auth as the
// exporter-toolkit web config file says (node_exporter's
// --web.config.file; empty: plain HTTP).
func Serve(ctx context.Context, l net.Listener, h http.Handler, webConfig string, log *slog.Logger) error {
	if webConfig != "" {
		if err := web.Validate(webConfig); err != nil {
			return fmt.Errorf("export: web config %s: %w", webConfig, err)
		}
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
