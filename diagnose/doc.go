// Package diagnose says why a QP is stuck or failed: it turns what
// verbscope already reads (the Tracker's snapshots, updates and
// histories, the ports' hardware counters, trace's modifies) and what
// the peer's exporter says of the other end (/api/v1/qps) into a Verdict
// a person can act on: the cause, the evidence, the fix.
//
// The judgement is pure (judge.go: facts in, verdict out, table-tested);
// a Diagnoser (New, diagnoser.go) observes each Reading (FromFrame makes
// one of a watch frame), keeps what it needs across readings (the
// counters' last values, the PSNs of QPs that might be retrying) and asks
// the Peers (HTTPPeers: NewHTTPPeers, ParsePeerURLs; peers.go) only when
// a QP needs judging. Run takes its own readings for `verbscope
// diagnose`. While nothing
// retries and nothing failed, a reading costs a comparison of the ports'
// counters and nothing more.
//
// No cgo, no UI: the dashboard, the exporter, the recorder and the CLI
// each feed it their readings and show its verdicts (text.go: a
// verdict's Lines; WriteText and WriteJSON print them as `verbscope
// diagnose` does).
package diagnose
