package lab

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// chooseAccel decides between KVM and TCG. KVM is used only where it really
// boots this kernel: on hosts whose /dev/kvm is the paravirtual kvm_pvm it
// opens fine but dies on the first cmpxchg16b, so a quick probe boot
// decides, and its verdict is kept per host kernel, qemu and guest kernel.
func (c *Cache) chooseAccel(ctx context.Context, want string, a *assets) (string, error) {
	switch want {
	case "kvm", "tcg":
		return want, nil
	case "":
	default:
		return "", fmt.Errorf("lab: unknown accelerator %q (kvm, tcg, or empty to probe)", want)
	}
	if env := os.Getenv("VERBSCOPE_ACCEL"); env == "kvm" || env == "tcg" {
		return env, nil
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return "tcg", nil
	}
	f.Close()
	key := probeKey(a)
	file := filepath.Join(c.Dir, "accel")
	if data, err := os.ReadFile(file); err == nil {
		if k, v, ok := strings.Cut(strings.TrimSpace(string(data)), " "); ok && k == key {
			return v, nil
		}
	}
	c.progress("probing whether KVM boots the guest kernel (once per host; up to 20 s)")
	verdict := "tcg"
	if probeKVM(ctx, a) {
		verdict = "kvm"
	}
	c.progress("accelerator: %s", verdict)
	if err := os.WriteFile(file, []byte(key+" "+verdict+"\n"), 0o644); err != nil {
		return "", err
	}
	return verdict, nil
}

// probeKey names the inputs of the probe's verdict.
func probeKey(a *assets) string {
	var u syscall.Utsname
	syscall.Uname(&u)
	rel := make([]byte, 0, len(u.Release))
	for _, b := range u.Release {
		if b == 0 {
			break
		}
		rel = append(rel, byte(b))
	}
	qemu, _ := exec.LookPath("qemu-system-x86_64")
	var qt int64
	if st, err := os.Stat(qemu); err == nil {
		qt = st.ModTime().Unix()
	}
	return fmt.Sprintf("%s|%d|%s", rel, qt, filepath.Base(a.Kernel.Dir))
}

// probeKVM boots the guest with KVM to the start of /init and no further.
// A kernel that really runs under KVM gets there in well under a second.
func probeKVM(ctx context.Context, a *assets) bool {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	m := machine{Kernel: a.Kernel.Vmlinux, Initrd: a.Initrd, Accel: "kvm", MemMB: 512, CPUs: 1, Guest: guest{Mode: "probe"}}
	cmd := exec.CommandContext(ctx, "qemu-system-x86_64", m.Args()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = time.Second
	// One pipe for both streams: qemu reports "KVM internal error" on
	// stderr and then pauses the guest instead of exiting, so the probe
	// must notice it rather than wait out its timeout.
	pr, pw, err := os.Pipe()
	if err != nil {
		return false
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return false
	}
	ok := false
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := cleanLine(sc.Text())
		if _, m, found := parseMarker(line); found && m.Kind == markerProbe {
			ok = true
		}
		if strings.Contains(line, "KVM internal error") || strings.Contains(line, "emulation failure") {
			cancel()
		}
	}
	cmd.Wait()
	return ok
}
