// Command verbscope explores, teaches and debugs RDMA verbs on Linux: an
// inspector of every device, port, counter and live verbs object on the
// host, a verbs shell over libibverbs, and a lab that boots a real
// Soft-RoCE kernel in qemu where the host has no RDMA.
package main

import (
	"os"

	"github.com/verbscope/verbscope/cli"
)

// version is set at build time by the Makefile (git describe).
var version string

// atExit, when set (a build with -tags profile), runs as main returns.
var atExit func()

func main() {
	code := cli.Main(os.Args[1:], &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Version: version})
	if atExit != nil {
		atExit()
	}
	os.Exit(code)
}
