package sysfsmon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// KernelLine is one record of the kernel's log as /dev/kmsg gives it
// (Documentation/ABI/testing/dev-kmsg: "PRI,SEQ,TS_USEC,FLAGS;MESSAGE"
// with the continuation lines " KEY=VALUE" of its dictionary), kept when
// an RDMA driver or module wrote it (rdmaDriver).
type KernelLine struct {
	// Level is the syslog level (syslog(2): 0 emerg ... 7 debug), the low
	// three bits of PRI; Facility is the rest (0 for the kernel's own).
	Level, Facility int
	// Seq is the record's sequence number: a gap means records were
	// overwritten before they were read.
	Seq uint64
	// Since is the time since boot the record was written (TS_USEC);
	// Time is the same as wall-clock time (FollowKernelLog sets it).
	Since time.Duration
	Time  time.Time
	// Text is the message, with the \xHH escapes the kernel writes for
	// unprintable bytes left as they are.
	Text string
	// Device is the device the dictionary names (DEVICE=+infiniband:rxe0
	// gives "rxe0", +pci:0000:3b:00.0 gives "0000:3b:00.0"); may be empty.
	Device string
	// Driver is the RDMA driver or module the line is from: "rdma_rxe",
	// "mlx5_core", "ib_core", ... (rdmaDriver); empty for other lines.
	Driver string
}

// LevelName is the syslog(2) name of Level: "err", "warning", ...
func (l KernelLine) LevelName() string {
	names := [...]string{"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"}
	if l.Level >= 0 && l.Level < len(names) {
		return names[l.Level]
	}
	return "unknown"
}

// parseKmsg parses one record read from /dev/kmsg (one read returns one
// record: its header line, then its dictionary lines).
func parseKmsg(rec string) (KernelLine, error) {
	head, rest, ok := strings.Cut(rec, ";")
	if !ok {
		return KernelLine{}, errors.New("kmsg: no ';' after the record's header")
	}
	f := strings.Split(head, ",")
	if len(f) < 3 {
		return KernelLine{}, fmt.Errorf("kmsg: header %q: want PRI,SEQ,TS_USEC[,FLAGS]", head)
	}
	pri, err1 := strconv.ParseUint(f[0], 10, 16)
	seq, err2 := strconv.ParseUint(f[1], 10, 64)
	us, err3 := strconv.ParseUint(f[2], 10, 63)
	if err := errors.Join(err1, err2, err3); err != nil || us > uint64(1<<63-1)/1000 {
		return KernelLine{}, fmt.Errorf("kmsg: header %q: want numbers", head)
	}
	l := KernelLine{Level: int(pri & 7), Facility: int(pri >> 3), Seq: seq, Since: time.Duration(us) * time.Microsecond}
	lines := strings.Split(strings.TrimRight(rest, "\n"), "\n")
	l.Text = lines[0]
	for _, d := range lines[1:] {
		k, v, ok := strings.Cut(strings.TrimPrefix(d, " "), "=")
		if !ok || k != "DEVICE" {
			continue
		}
		// +subsystem:name (include/linux/dev_printk.h's dev_vprintk_emit)
		if _, name, ok := strings.Cut(v, ":"); ok && strings.HasPrefix(v, "+") {
			l.Device = name
		}
	}
	l.Driver = rdmaDriver(l.Text)
	if l.Device == "" && l.Driver != "" {
		// "rxe0: ...", "infiniband mlx5_0: ...": the device it names.
		for _, w := range strings.Fields(l.Text)[:min(2, len(strings.Fields(l.Text)))] {
			if w = strings.TrimSuffix(w, ":"); deviceDriver(w) != "" {
				l.Device = w
				break
			}
		}
	}
	return l, nil
}

// rdmaPrefixes are how RDMA drivers and the core begin their lines:
// dev_printk's "DRIVER DEVICE: " (mlx5_core 0000:3b:00.0: ...), the
// ibdev_printk "DRIVER: DEVICE: " and pr_fmt's "MODULE: ".
var rdmaPrefixes = []string{
	"ib_core", "ib_uverbs", "ib_umad", "ib_cm", "iw_cm", "rdma_cm", "rdma_ucm", "ib_ipoib", "infiniband",
	"rdma_rxe", "rxe", "siw", "mlx5_core", "mlx5_ib", "mlx4_core", "mlx4_ib", "irdma", "bnxt_re", "efa",
	"hns_roce", "hns3", "qedr", "erdma", "mana_ib", "vmw_pvrdma", "ocrdma", "cxgb4", "iw_cxgb4",
}

// rdmaDriver names the RDMA driver or module a kernel log line comes
// from, by its prefix ("rdma_rxe: ...", "mlx5_core 0000:3b:00.0: ...",
// "infiniband rxe0: ..." and "rxe0: ..." of a device named after its
// driver, which count as the driver's: rdma_rxe), or "" for other lines.
func rdmaDriver(text string) string {
	word, rest, _ := strings.Cut(text, " ")
	word = strings.TrimSuffix(word, ":")
	if word == "infiniband" {
		// dev_printk on an ib_device: "infiniband rxe0: set active" is
		// rdma_rxe's; a device not named after its driver is the core's.
		dev, _, _ := strings.Cut(rest, " ")
		if d := deviceDriver(strings.TrimSuffix(dev, ":")); d != "" {
			return d
		}
	}
	for _, p := range rdmaPrefixes {
		if word == p {
			if p == "rxe" {
				return "rdma_rxe"
			}
			return p
		}
	}
	return deviceDriver(word)
}

// deviceDriver is the driver of an ib_device named after it (rxe0,
// mlx5_0, irdma1, bnxt_re0), or "".
func deviceDriver(name string) string {
	for _, d := range deviceDrivers {
		if n, ok := strings.CutPrefix(name, d.prefix); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			return d.driver
		}
	}
	return ""
}

// deviceDrivers are the names drivers give their ib_devices, and the
// driver module each stands for.
var deviceDrivers = []struct{ prefix, driver string }{
	{"rxe", "rdma_rxe"}, {"siw", "siw"}, {"mlx5_", "mlx5_ib"}, {"mlx4_", "mlx4_ib"}, {"irdma", "irdma"},
	{"bnxt_re", "bnxt_re"}, {"efa_", "efa"}, {"hns_", "hns_roce"}, {"qedr", "qedr"}, {"erdma_", "erdma"},
}

// ErrKernelLogDenied means /dev/kmsg could not be opened for want of
// privilege: reading the kernel log takes CAP_SYSLOG (or root) when
// kernel.dmesg_restrict is 1, as on most distributions.
var ErrKernelLogDenied = errors.New("reading the kernel log (/dev/kmsg) needs root or CAP_SYSLOG (kernel.dmesg_restrict)")

// FollowKernelLog reads /dev/kmsg from the oldest record still in the
// kernel's ring to the newest, then each new one as it is written, and
// calls fn with every line an RDMA driver or module wrote (KernelLine.
// Driver set), until ctx ends. Records the ring overwrote before they
// were read are skipped (the read says EPIPE). It returns at once with
// an error wrapping ErrKernelLogDenied without the privilege, or
// another if there is no /dev/kmsg.
func (f *FS) FollowKernelLog(ctx context.Context, fn func(KernelLine)) error {
	file, err := os.Open(f.rootPath("dev", "kmsg"))
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("sysfsmon: %w", ErrKernelLogDenied)
		}
		return fmt.Errorf("sysfsmon: kernel log: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { file.Close() })
	defer stop()
	defer file.Close()
	boot := bootTime()
	return readKmsg(file, func(l KernelLine) {
		l.Time = boot.Add(l.Since)
		fn(l)
	})
}

// bootTime is when the kernel's clock of the log (local_clock, which
// CLOCK_BOOTTIME follows closely) started, in wall-clock time.
func bootTime() time.Time {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_BOOTTIME, &ts); err != nil {
		return time.Now()
	}
	return time.Now().Add(-time.Duration(ts.Nano()))
}

// readKmsg reads records, one per Read as /dev/kmsg returns them, until
// the reader fails; an error after the reader was closed is nil.
func readKmsg(r io.Reader, fn func(KernelLine)) error {
	buf := make([]byte, 8192) // a record is at most 1 KiB of text and its dictionary
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if l, perr := parseKmsg(string(buf[:n])); perr == nil && l.Driver != "" {
				fn(l)
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, syscall.EPIPE):
			// records overwritten before they were read: go on
		case errors.Is(err, io.EOF), errors.Is(err, os.ErrClosed):
			return nil
		default:
			return fmt.Errorf("sysfsmon: kernel log: %w", err)
		}
	}
}

// qpRef finds a QP number in a driver's line: "qp#17", "QPN 0x11",
// "qpn=17", "qp 17".
// Compiled at first use, not in every verbscope process at start.
var qpRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bqp(?:n|#)?\s*[#:=]?\s*(0x[0-9a-f]+|\d+)\b`)
})

// QPN returns the QP number the line names, if it names one.
func (l KernelLine) QPN() (uint32, bool) {
	m := qpRef().FindStringSubmatch(l.Text)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseUint(m[1], 0, 24)
	return uint32(n), err == nil
}
