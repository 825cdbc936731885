// Package deploy holds no code: it is what runs verbscope export on a
// fleet (a systemd unit, a sample prometheus.yml, the alert rules and a
// Grafana dashboard), and the tests that check them with promtool, the
// Prometheus package's own checker.
package deploy
