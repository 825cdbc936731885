package export

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/prometheus/exporter-toolkit/web"
	"go.yaml.in/yaml/v2"
)

// The rule of /api/v1/qps: nothing RDMA netlink hides from an
// unprivileged local user (the keys), and nothing that lets a remote
// party join or spoof a connection (PSNs, the peer's QP number, GIDs in
// a traced address vector, any traced attribute), goes to a client that
// did not authenticate. A root exporter must not hand out what the kernel
// itself would not tell a local user. /metrics never carries any of it.

// APIOptions say who /api/v1/qps serves its hidden fields to.
type APIOptions struct {
	// WebConfig is the exporter-toolkit web config file that Serve
	// serves with ("" for none): a request that passed its basic auth
	// or presented a verified client certificate is authenticated.
	WebConfig string
	// Sensitive serves them to every client (--api.sensitive): for a
	// port only trusted hosts reach.
	Sensitive bool
}

// servesSensitive reports whether r gets the hidden fields. The web
// config is read again for each request, as exporter-toolkit reads it
// for each request, so one that drops basic_auth_users while the
// exporter runs stops the fields at once; a config that cannot be read
// serves none (exporter-toolkit then answers 500 anyway).
func (o APIOptions) servesSensitive(r *http.Request) bool {
	if o.Sensitive {
		return true
	}
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		return true // a client certificate the TLS handshake verified
	}
	if o.WebConfig == "" {
		return false
	}
	cfg, err := readWebConfig(o.WebConfig)
	if err != nil {
		return false
	}
	// exporter-toolkit, in front of this handler, checked the password
	// of any configured user against the same file.
	user, _, ok := r.BasicAuth()
	_, known := cfg.Users[user]
	return ok && known
}

// readWebConfig reads the parts of a web config that say whether it
// authenticates (exporter-toolkit validates the whole at start).
func readWebConfig(path string) (*web.Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("export: web config: %w", err)
	}
	var c web.Config
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("export: web config %s: %w", path, err)
	}
	return &c, nil
}

// exposure says in one sentence what the server gives a client that does
// not authenticate, for the log at start, and at which level: a warning
// when the hidden fields go to anyone.
func (o APIOptions) exposure() (slog.Level, string, error) {
	var users bool
	var certs string
	if o.WebConfig != "" {
		c, err := readWebConfig(o.WebConfig)
		if err != nil {
			return 0, "", err
		}
		users, certs = len(c.Users) > 0, c.TLSConfig.ClientAuth
	}
	hidden := "keys, PSNs, dest_qp_num (rqpn), GIDs and traced modify attributes"
	switch {
	case certs == "RequireAndVerifyClientCert" || users:
		return slog.LevelInfo, "every page asks for authentication (web config); /api/v1/qps serves authenticated clients " + hidden, nil
	case o.Sensitive:
		return slog.LevelWarn, "served without authentication to anyone who reaches the port: /metrics, and /api/v1/qps with " + hidden +
			" (--api.sensitive); a party that reaches the port can join or spoof these QPs' connections", nil
	}
	return slog.LevelInfo, "served without authentication: /metrics, and /api/v1/qps without " + hidden +
		" (basic_auth_users in --web.config.file serves them to authenticated clients)", nil
}
