// Package fleet is `verbscope fleet`: one row per host that Prometheus
// scrapes verbscope export on (devices and ports up or down, QPs by
// state, ERR and stuck counts, error-counter rates, firing alerts),
// worst first. It asks Prometheus's HTTP API (/api/v1/query,
// /api/v1/alerts) and nothing else: no agent of ours between hosts.
// Rows asks a Client for the Hosts; WriteText prints them.
package fleet
