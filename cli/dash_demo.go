package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/verbscope/verbscope/sysfsmon"
)

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
	fmt.Fprintln(env.Stderr, "       run the dashboard in the lab VM, on a real Soft-RoCE rxe0: verbscope lab -i -- verbscope dash --demo")
	fmt.Fprint(env.Stderr, "start the lab VM now? [Y/n] ")
	ans, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if err != nil && err != io.EOF {
		return ExitError{Code: 1}
	}
	if a := strings.ToLower(strings.TrimSpace(ans)); a != "" && a != "y" && a != "yes" {
		return ExitError{Code: 1}
	}
	if code := run(ctx, []string{"lab", "-i", "--", "verbscope", "dash", "--demo"}, env); code != 0 {
		return ExitError{Code: code}
	}
	return nil
}

// demo is the workload --demo runs beside the dashboard: an
// ibv_rc_pingpong pair in a loop (QPs appear, reach RTS, vanish) and a
// verbs shell holding one QP in ERR. Every process dies with ours
// (Pdeathsig) and stop ends them.
type demo struct {
	label string
	procs []*exec.Cmd
	stdin io.Closer
}

func startDemo(ctx context.Context, dev string) (*demo, error) {
	if dev == "" {
		dev = "rxe0"
	}
	gid := os.Getenv("LAB_GID_INDEX")
	if gid == "" {
		gid = "1"
	}
	ip := os.Getenv("LAB_IP")
	if ip == "" {
		ip = "127.0.0.1"
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	if !plainWord(dev) {
		return nil, usageErrorf("--dev %q: a device name is letters, digits, '_', '-' and '.'", dev)
	}
	d := &demo{label: "pingpong pair in a loop + a QP held in ERR"}
	pair := pairLoop(ctx, dev, gid, ip)
	errQP := exec.CommandContext(ctx, self, "shell", "--dev", dev)
	w, err := errQP.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	d.stdin = w
	for _, c := range []*exec.Cmd{pair, errQP} {
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
		if err := c.Start(); err != nil {
			d.stop()
			return nil, fmt.Errorf("demo: starting %s: %w", c.Path, err)
		}
		d.procs = append(d.procs, c)
	}
	// The shell reads its script from the pipe and then waits for more:
	// the QP stays in ERR until the pipe closes.
	fmt.Fprintf(w, "open %s; pd; cq; qp type=rc cq=cq1; next qp1; modify qp1 err\n", dev)
	return d, nil
}

// pairScript runs an ibv_rc_pingpong pair in a loop through one device
// to itself (the client connects to this host's own address). The device
// ($1), GID index ($2) and address ($3) are its arguments, never part of
// its text: they come from --dev and the environment, and sh would run
// whatever they held.
const pairScript = `while :; do ibv_rc_pingpong -d "$1" -g "$2" -n 3000 >/dev/null 2>&1 & sleep 0.5; ibv_rc_pingpong -d "$1" -g "$2" -n 3000 "$3" >/dev/null 2>&1; wait; sleep 2; done`

func pairLoop(ctx context.Context, dev, gid, ip string) *exec.Cmd {
	return exec.CommandContext(ctx, "sh", "-c", pairScript, "demo-pair", dev, gid, ip)
}

// plainWord: the device name goes into the verbs shell's script too,
// where a ';' would start another command.
func plainWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return s != ""
}

// stop ends the demo's processes and their children.
func (d *demo) stop() {
	if d.stdin != nil {
		d.stdin.Close()
	}
	for _, c := range d.procs {
		if c.Process != nil {
			syscall.Kill(-c.Process.Pid, syscall.SIGTERM)
			c.Wait()
		}
	}
}
