package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

// labDash opens the dashboard in the lab VM with its demo: the guest's
// sh expands the lab's device and GID index into flags.
const labDash = `verbscope dash --dev "$LAB_DEV" --gid-index "$LAB_GID_INDEX" --demo`

// noRDMA explains, as doctor does, why this host has no RDMA, and
// offers to open the dashboard in the lab VM instead.
func noRDMA(ctx context.Context, env *Env, fsys *sysfsmon.FS, cause error) error {
	h := fsys.Host()
	fmt.Fprintln(env.Stderr, "verbscope dash: this host has no RDMA to show:")
	fmt.Fprintf(env.Stderr, "  RDMA netlink: %v\n", cause)
	if !h.HasModule("ib_core") {
		fmt.Fprintln(env.Stderr, "  /proc/modules: ib_core is not loaded (the kernel's RDMA core)")
	}
	if names, _ := fsys.DeviceNames(); len(names) == 0 {
		fmt.Fprintln(env.Stderr, "  /sys/class/infiniband: no devices")
	}
	fmt.Fprintln(env.Stderr, "  fix: load a driver (modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0), or")
	fmt.Fprintln(env.Stderr, "       run the dashboard in the lab VM, on a real Soft-RoCE rxe0: verbscope lab -i -- "+labDash)
	fmt.Fprint(env.Stderr, "start the lab VM now? [Y/n] ")
	ans, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return exitError{Code: 1}
	}
	if a := strings.ToLower(strings.TrimSpace(ans)); a != "" && a != "y" && a != "yes" {
		return exitError{Code: 1}
	}
	if code := run(ctx, []string{"lab", "-i", "--", labDash}, env); code != 0 {
		return exitError{Code: code}
	}
	return nil
}
