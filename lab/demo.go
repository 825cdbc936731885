package lab

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// DemoOptions configure StartDemo.
type DemoOptions struct {
	// Dev is the device the workload runs on (default rxe0, the lab's).
	Dev string
	// GIDIndex is ibv_rc_pingpong's -g: the source GID of its RoCE
	// address vectors. In the guest init.sh exports it as LAB_GID_INDEX
	// (the RoCE v2 GID of rxe0's IPv4 address); whoever starts the
	// dashboard there passes it on (make run: --gid-index).
	GIDIndex int
}

// demoLabel is what the dashboard shows while the demo runs.
const demoLabel = "pingpong pair in a loop + a QP held in ERR"

// StartDemo starts the demo workload `verbscope dash --demo` runs beside
// the dashboard, so that a new lab shows something alive: an
// ibv_rc_pingpong pair in a loop through the device to itself (QPs
// appear, reach RTS, vanish), and a verbs shell (this executable's
// `shell`) holding one QP in ERR. Every process dies with ours
// (Pdeathsig); stop ends them and their children. label says what runs.
func StartDemo(ctx context.Context, o DemoOptions) (label string, stop func(), err error) {
	dev := o.Dev
	if dev == "" {
		dev = "rxe0"
	}
	if !plainWord(dev) {
		return "", nil, fmt.Errorf("lab: demo: device %q: a device name is letters, digits, '_', '-' and '.'", dev)
	}
	self, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("lab: demo: %w", err)
	}
	d := &demo{}
	pair := pairLoop(ctx, dev, strconv.Itoa(o.GIDIndex), "127.0.0.1")
	errQP := exec.CommandContext(ctx, self, "shell", "--dev", dev)
	w, err := errQP.StdinPipe()
	if err != nil {
		return "", nil, fmt.Errorf("lab: demo: %w", err)
	}
	d.stdin = w
	for _, c := range []*exec.Cmd{pair, errQP} {
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
		if err := c.Start(); err != nil {
			d.stop()
			return "", nil, fmt.Errorf("lab: demo: starting %s: %w", c.Path, err)
		}
		d.procs = append(d.procs, c)
	}
	// The shell reads its script from the pipe and then waits for more:
	// the QP stays in ERR until the pipe closes.
	fmt.Fprintf(w, "open %s; pd; cq; qp type=rc cq=cq1; next qp1; modify qp1 err\n", dev)
	return demoLabel, d.stop, nil
}

// demo is the running workload.
type demo struct {
	procs []*exec.Cmd
	stdin io.Closer
}

// pairScript runs an ibv_rc_pingpong pair in a loop through one device
// to itself (the client connects to the server's TCP port on this host
// to exchange their addresses). The device ($1), GID index ($2) and
// address ($3) are its arguments, never part of its text: sh would run
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
