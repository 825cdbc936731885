package main

import (
	"fmt"
	"path/filepath"
	"strings"
)

// guestScript runs each test binary from its package folder in the guest,
// each in a cgroup of its own, and prints go test's summary line for it.
//
// However a binary ends (passed, failed, killed by its own -test.timeout),
// everything it started goes with it: cgroup.kill ends every process in
// its cgroup (tmux servers, shells, rc_pingpong peers and QP holders
// daemonize or change session, but cannot leave their cgroup). Then the
// script waits for the kernel to release their verbs objects; any user
// object still listed by `rdma resource show` after that fails this
// package, named with its owner, so the next package starts clean and a
// failure is reported where it happened.
func guestScript(c config, root, out string, pkgs []labPackage) string {
	common := []string{"-test.v", "-test.timeout=" + c.timeout.String(), fmt.Sprintf("-test.count=%d", c.count)}
	if c.short {
		common = append(common, "-test.short")
	}
	// argsFor selects the package's lab tests, narrowed by -run; with
	// -bench, its lab benchmarks instead.
	argsFor := func(p labPackage) []string {
		args := append([]string(nil), common...)
		if c.bench != "" {
			return append(args, "-test.run=^$", "-test.benchmem", "-test.bench="+shellQuote(selectPattern(p.benchmarks, c.bench)))
		}
		return append(args, "-test.run="+shellQuote(selectPattern(p.tests, c.run)))
	}
	guest := func(p string) string {
		rel, _ := filepath.Rel(root, p)
		return "/mnt/host/" + filepath.ToSlash(rel)
	}
	var b strings.Builder
	fmt.Fprintf(&b, guestFuncs, int(releaseLimit.Seconds()))
	for i, p := range pkgs {
		fmt.Fprintf(&b, "runpkg %d %s %s %s/%s.test %s\n", i, p.importPath, guest(p.dir), guest(out), p.name, strings.Join(argsFor(p), " "))
	}
	b.WriteString("exit $fail\n")
	return b.String()
}

// guestFuncs is the script's prelude; %d is the release limit in seconds.
const guestFuncs = `fail=0
now() { cut -d' ' -f1 /proc/uptime; }
# userobjs lists the verbs objects that belong to a process (the kernel's
# own, such as ib_core's QP1, have no pid).
userobjs() {
  for k in qp cq mr pd ctx srq cm_id; do
    rdma resource show $k 2>/dev/null | grep ' pid ' | sed "s/^/  $k /"
  done
}
runpkg() {
  n=$1 pkg=$2 dir=$3; shift 3
  cg=/sys/fs/cgroup/labtest-$n
  mkdir -p $cg
  echo "=== PACKAGE $pkg"
  t0=$(now)
  # The binary runs from tmpfs: from the 9p share every start (and every
  # re-run of itself as a helper) would read all of it again.
  bin=/tmp/labtest-$n.test
  cp "$1" $bin
  shift
  sh -c 'echo $$ > "$1/cgroup.procs" && cd "$2" && shift 2 && exec "$@"' runpkg $cg $dir $bin "$@"
  rc=$?
  rm -f $bin
  echo 1 > $cg/cgroup.kill
  i=0
  while [ -n "$(cat $cg/cgroup.procs)" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
  rmdir $cg 2>/dev/null
  left=$(userobjs) i=0
  while [ -n "$left" ] && [ $i -lt %d ]; do sleep 1; left=$(userobjs); i=$((i+1)); done
  if [ -n "$left" ]; then
    echo "labtest: $pkg: verbs objects outlived every process the tests started; whose they are:"
    echo "$left"
    rc=1
  fi
  dt=$(awk -v a=$t0 -v b=$(now) 'BEGIN{printf "%%.3fs", b-a}')
  if [ $rc = 0 ]; then printf 'ok  \t%%s\t%%s\n' $pkg $dt; else printf 'FAIL\t%%s\t%%s\n' $pkg $dt; fail=1; fi
}
`
