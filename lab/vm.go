package lab

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/verbscope/verbscope/internal/syncio"
)

// Options configure a lab run.
type Options struct {
	CPUs    int           // vCPUs per VM (2 by default)
	MemMB   int           // guest memory per VM (2048 MiB by default; TCG allocates lazily)
	Accel   string        // "kvm", "tcg", or "" to probe once and remember
	Timeout time.Duration // whole run, boot included; 0 means 15 minutes
	Share   string        // host folder mounted read-write at /mnt/host (optional)
	Bin     []string      // host programs put in /mnt/lab/bin, first on the guest's PATH
	Out     io.Writer     // the command's output (stdout by default)
	Log     io.Writer     // the lab's own progress lines (stderr by default)
	Verbose bool          // also print the guest's boot log
}

func (o *Options) defaults() {
	if o.CPUs == 0 {
		o.CPUs = 2
	}
	if o.MemMB == 0 {
		o.MemMB = 2048
	}
	if o.Timeout == 0 {
		o.Timeout = 15 * time.Minute
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
}

// Lab boots guests from prepared assets.
type Lab struct {
	cache  *Cache
	assets *assets
	accel  string
	// started, if set, learns each qemu's pid (tests check they end).
	started func(pid int)
	opts    Options
}

// New prepares the cache (kernel, initramfs) and picks the accelerator.
func New(ctx context.Context, cache *Cache, opts Options) (*Lab, error) {
	opts.defaults()
	if cache.Log == nil {
		cache.Log = opts.Log
	}
	if err := checkHostTools(); err != nil {
		return nil, err
	}
	assets, err := cache.prepare(ctx)
	if err != nil {
		return nil, err
	}
	l := &Lab{cache: cache, assets: assets, opts: opts}
	l.accel, err = cache.chooseAccel(ctx, opts.Accel, assets)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Accel is the accelerator the lab boots with.
func (l *Lab) Accel() string { return l.accel }

// Run boots one VM, runs script (sh syntax) in it after rxe0 is up, streams
// its output and returns its exit status.
func (l *Lab) Run(ctx context.Context, script string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	r := l.boot(ctx, vmSpec{guest: guest{Mode: "run", Role: "single"}, script: script, out: l.opts.Out})
	return r.code, r.err
}

// RunPair boots two VMs joined by a virtual wire, each with its own rxe0
// (10.0.1.1 for a, 10.0.1.2 for b), runs one script on each, and streams
// both outputs with "[a] " and "[b] " in front. Two rxe devices in one 6.1
// kernel cannot reach each other, so crossing a wire needs two kernels. The
// status is a's, or b's if a succeeded. When one VM fails to come up, the
// other is stopped, since its peer will never answer.
func (l *Lab) RunPair(ctx context.Context, scriptA, scriptB string) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	pa, pb, err := freeUDPPorts()
	if err != nil {
		return 0, err
	}
	out := syncio.NewWriter(l.opts.Out) // whole lines from the two VMs
	specs := []vmSpec{
		{guest: guest{Mode: "run", Role: "a", IP: "10.0.1.1/24", Peer: "10.0.1.2"}, link: &link{LocalPort: pa, RemotePort: pb, MAC: "52:54:00:12:34:01"}, script: scriptA, name: "a"},
		{guest: guest{Mode: "run", Role: "b", IP: "10.0.1.2/24", Peer: "10.0.1.1"}, link: &link{LocalPort: pb, RemotePort: pa, MAC: "52:54:00:12:34:02"}, script: scriptB, name: "b"},
	}
	results := make([]result, len(specs))
	var wg sync.WaitGroup
	for i := range specs {
		specs[i].out = &prefixWriter{w: out, prefix: "[" + specs[i].name + "] "}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = l.boot(ctx, specs[i])
			if results[i].err != nil {
				cancel()
			}
		}(i)
	}
	wg.Wait()
	for i, r := range results {
		if r.err != nil {
			return 0, fmt.Errorf("host %s: %w", specs[i].name, r.err)
		}
	}
	for _, r := range results {
		if r.code != 0 {
			return r.code, nil
		}
	}
	return 0, nil
}

// Shell boots one VM and attaches this terminal to its console, sized
// like the terminal: to command if one is given (sh syntax), else to a
// login shell. The terminal is restored however qemu ends.
func (l *Lab) Shell(ctx context.Context, command string) error {
	g := guest{Mode: "shell", Role: "single", Term: os.Getenv("TERM")}
	fd := int(os.Stdin.Fd())
	if !term.IsTerminal(fd) {
		return errors.New("lab: the lab shell needs a terminal on stdin; give a command to run instead")
	}
	if w, h, err := term.GetSize(fd); err == nil {
		g.Cols, g.Rows = w, h
	}
	state, err := term.GetState(fd)
	if err != nil {
		return err
	}
	defer term.Restore(fd, state)
	ctl, err := l.controlDir(command)
	if err != nil {
		return err
	}
	defer os.RemoveAll(ctl)
	m := l.machine(g, nil, ctl)
	fmt.Fprintf(l.opts.Log, "lab: booting Debian %s with rdma_rxe (%s); Ctrl-A x kills the VM\n", kernelRelease(l.assets), l.accel)
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", m.Args()...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	defer keepRawOutput(fd)()
	// qemu must stay in the terminal's foreground process group to read
	// it, so no Setpgid here; Pdeathsig still takes it down with us.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("lab: qemu: %w", err)
	}
	return ctx.Err()
}

// vmSpec is one VM of a run.
type vmSpec struct {
	guest  guest
	link   *link
	script string
	out    io.Writer
	name   string
}

type result struct {
	code int
	err  error
}

// boot runs one VM to the end and reads its console.
func (l *Lab) boot(ctx context.Context, s vmSpec) result {
	ctl, err := l.controlDir(s.script)
	if err != nil {
		return result{err: err}
	}
	defer os.RemoveAll(ctl)
	m := l.machine(s.guest, s.link, ctl)
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", m.Args()...)
	// Its own process group keeps the terminal's Ctrl-C away from qemu: we
	// catch it and kill qemu ourselves. Pdeathsig covers our own death.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 2 * time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{err: err}
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	name := "VM"
	if s.name != "" {
		name = "VM " + s.name
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{err: fmt.Errorf("lab: start qemu: %w", err)}
	}
	if l.started != nil {
		l.started(cmd.Process.Pid)
	}
	con := l.readConsole(stdout, s.out, fmt.Sprintf("%s booted, rxe0 ready", name), m.CPUs, start, func() { cmd.Process.Kill() })
	werr := cmd.Wait()
	if st := cmd.ProcessState; st != nil && con.ready {
		// The host's CPU is what VMs share: a run's cost to the VMs
		// beside it, beside its own time.
		fmt.Fprintf(l.opts.Log, "lab: %s ended after %.0f s; qemu used %.0f s of the host's CPUs\n",
			name, time.Since(start).Seconds(), (st.UserTime() + st.SystemTime()).Seconds())
	}
	switch {
	case len(con.kernel) > 0:
		return result{err: fmt.Errorf("lab: %s: the guest kernel reported trouble %s after boot, so the run was stopped; its lines:\n%s",
			name, con.kernelAt.Sub(start).Round(time.Second), strings.Join(con.kernel, "\n"))}
	case con.exit != nil:
		return result{code: con.exit.Code}
	case con.fail != "":
		return result{err: fmt.Errorf("lab: the guest's /init failed: %s\n%s", con.fail, con.tail())}
	case ctx.Err() == context.DeadlineExceeded:
		return result{err: fmt.Errorf("lab: %s timed out after %s (ready: %v); last console lines:\n%s", name, time.Since(start).Round(time.Second), con.ready, con.tail())}
	case ctx.Err() != nil:
		return result{err: fmt.Errorf("lab: %s stopped: %w", name, ctx.Err())}
	default:
		return result{err: fmt.Errorf("lab: %s ended without an exit status (qemu: %v %s); last console lines:\n%s",
			name, werr, strings.TrimSpace(stderr.String()), con.tail())}
	}
}

// console is what readConsole saw.
type console struct {
	ready bool
	exit  *marker
	fail  string
	boot  []string // the last lines before READY, for error reports
	// kernel holds the lines of the kernel's trouble report (a soft
	// lockup, hung task, BUG, Oops or OOM) and its stack; kernelAt is
	// when the first came.
	kernel   []string
	kernelAt time.Time
}

// kernelGrace is how long the console is read after the kernel first
// reports trouble, for the rest of its report (the stacks of every CPU)
// to arrive, before the VM is stopped.
const kernelGrace = 5 * time.Second

func (c *console) tail() string {
	return strings.Join(c.boot, "\n")
}

// readConsole streams the guest console until EOF: boot lines are kept
// (shown with Verbose), lines after READY go to out, markers are consumed.
// When the kernel reports trouble, it calls stop after kernelGrace: a
// guest whose kernel is stuck would otherwise hold the run until its
// timeout, saying nothing.
func (l *Lab) readConsole(r io.Reader, out io.Writer, what string, cpus int, start time.Time, stop func()) *console {
	c := &console{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	trouble := func(line string) {
		if c.kernel == nil {
			c.kernelAt = time.Now()
			fmt.Fprintf(l.opts.Log, "lab: the guest kernel reports trouble: %s (stopping the VM in %s)\n", line, kernelGrace)
			time.AfterFunc(kernelGrace, stop)
		}
		c.kernel = append(c.kernel, line)
	}
	for sc.Scan() {
		line := cleanLine(sc.Text())
		if kernelTrouble(line) {
			trouble(line)
		}
		before, m, ok := parseMarker(line)
		if before != "" || !ok {
			if c.ready && c.exit == nil {
				fmt.Fprintln(out, before)
			} else {
				c.boot = append(c.boot, before)
				if len(c.boot) > 40 {
					c.boot = c.boot[1:]
				}
				if l.opts.Verbose {
					fmt.Fprintln(l.opts.Log, "boot: "+before)
				}
			}
		}
		if !ok {
			continue
		}
		switch m.Kind {
		case markerReady:
			c.ready = true
			fmt.Fprintf(l.opts.Log, "lab: %s in %.1f s (%s, %d vCPU, Debian %s)\n",
				what, time.Since(start).Seconds(), l.accel, cpus, kernelRelease(l.assets))
		case markerExit:
			c.exit = &m
		case markerFail:
			c.fail = m.Reason
		case markerKernel:
			trouble(m.Reason)
		}
	}
	return c
}

// machine assembles the qemu machine for a guest.
func (l *Lab) machine(g guest, link *link, ctl string) machine {
	if l.accel != "kvm" {
		g.TSCkHz = hostTSCkHz()
	}
	m := machine{
		Kernel: l.assets.Kernel.Vmlinux, Initrd: l.assets.Initrd, Accel: l.accel,
		MemMB: l.opts.MemMB, CPUs: l.opts.CPUs, Guest: g, Link: link,
		Shares: []share{{Tag: "lab", Dir: ctl}},
	}
	if link != nil {
		// Two TCG VMs share this host's two cores.
		m.CPUs = 1
	}
	if l.opts.Share != "" {
		m.Shares = append(m.Shares, share{Tag: "host", Dir: l.opts.Share})
	}
	return m
}

// controlDir makes the run's private 9p share: run.sh and bin/.
func (l *Lab) controlDir(script string) (string, error) {
	sweepRuns(l.cache.Dir)
	dir, err := os.MkdirTemp(filepath.Join(l.cache.Dir), "run-")
	if err != nil {
		return "", err
	}
	if err := ownRun(dir); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(". /etc/lab.env\n"+script+"\n"), 0o755); err != nil {
		return "", err
	}
	// The shell mode runs run.sh instead of a login shell when this is set.
	if err := os.WriteFile(filepath.Join(dir, "command"), []byte(script), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	for _, b := range l.opts.Bin {
		dst := filepath.Join(bin, filepath.Base(b))
		if err := os.Link(b, dst); err != nil {
			if err := copyFile(dst, b, 0o755); err != nil {
				return "", fmt.Errorf("lab: put %s in the guest: %w", b, err)
			}
		}
	}
	return dir, nil
}

func kernelRelease(a *assets) string {
	// The package name carries the release: linux-image-6.1.0-57-amd64_6.1.192-3_amd64.
	base := strings.TrimPrefix(filepath.Base(a.Kernel.Dir), "linux-image-")
	rel, _, _ := strings.Cut(base, "_")
	return rel
}

// checkHostTools names what is missing before anything slow starts.
func checkHostTools() error {
	var missing []string
	for _, t := range []string{"qemu-system-x86_64", "apt-get", "dpkg-deb", "xz", "ldd", "busybox"} {
		if _, err := exec.LookPath(t); err != nil {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("lab: this host lacks %s; `make deps` (as root) installs the Debian packages the lab needs", strings.Join(missing, ", "))
	}
	return nil
}

// freeUDPPorts picks two loopback UDP ports for the wire between two VMs.
func freeUDPPorts() (int, int, error) {
	var ports [2]int
	for i := range ports {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			return 0, 0, fmt.Errorf("lab: pick a UDP port: %w", err)
		}
		ports[i] = c.LocalAddr().(*net.UDPAddr).Port
		defer c.Close()
	}
	return ports[0], ports[1], nil
}

// prefixWriter puts a prefix before each line; callers write whole lines.
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (w *prefixWriter) Write(p []byte) (int, error) {
	if _, err := w.w.Write(append([]byte(w.prefix), p...)); err != nil {
		return 0, err
	}
	return len(p), nil
}
