// Package oracle parses what rdma-core's and iproute2's own tools print
// (ibv_devinfo -v: ParseDevinfo; the result tables of perftest's
// ib_send_lat and ib_write_bw: ParsePerftest; `rdma -j resource show`:
// ParseRdmaJSON, compared with verbscope's by CompareRdmaJSON), so lab
// tests and benchmarks can compare verbscope's answers with theirs in the
// same VM boot. The tools' output is outside input: every parser returns
// an error on nonsense, never panics, and has a fuzz target.
package oracle
