// Package oracle parses what rdma-core's own tools print (ibv_devinfo -v,
// and later ibv_rc_pingpong and perftest), so lab tests can compare
// verbscope's answers with theirs in the same VM boot. The tools' output is
// outside input: every parser returns an error on nonsense, never panics,
// and has a fuzz target.
package oracle
