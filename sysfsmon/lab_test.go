//go:build lab

package sysfsmon

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/internal/labkit"
	"golang.org/x/sys/unix"
)

// These tests run in the lab VM on the real rxe0 (go run ./lab/labtest
// ./sysfsmon); the oracles are the kernel's own interfaces read another
// way (uname, getrlimit, the shell) and real traffic from
// ibv_rc_pingpong.

func labFS(t *testing.T) *FS {
	t.Helper()
	f, err := NewDefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func labEnv(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("$%s is not set: not in the lab VM?", name)
	}
	return v
}

func TestLabHost(t *testing.T) {
	labkit.Clean(t)
	h := labFS(t).Host()
	if len(h.Warnings) != 0 {
		t.Errorf("warnings: %v", h.Warnings)
	}
	for _, m := range []string{"ib_core", "ib_uverbs", "rdma_rxe", "ib_umad", "rdma_cm", "rdma_ucm"} {
		if !h.HasModule(m) {
			t.Errorf("module %s not listed; got %s", m, h)
		}
	}
	if h.HasModule("veth") || h.HasModule("9p") {
		t.Errorf("non-RDMA modules listed: %s", h)
	}
	uname, err := exec.Command("uname", "-r").Output()
	if err != nil {
		t.Fatal(err)
	}
	if k := labkit.Kernel(t); h.KernelRelease != strings.TrimSpace(string(uname)) || !strings.HasPrefix(h.KernelRelease, k+".") {
		t.Errorf("kernel release %q; uname -r says %q, want %s", h.KernelRelease, uname, k)
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_MEMLOCK, &rl); err != nil {
		t.Fatal(err)
	}
	if h.MemlockSoft.Unlimited != (rl.Cur == ^uint64(0)) || (!h.MemlockSoft.Unlimited && h.MemlockSoft.Value != rl.Cur) ||
		h.MemlockHard.Unlimited != (rl.Max == ^uint64(0)) || (!h.MemlockHard.Unlimited && h.MemlockHard.Value != rl.Max) {
		t.Errorf("memlock %s/%s, getrlimit says %d/%d", h.MemlockSoft, h.MemlockHard, rl.Cur, rl.Max)
	}
	// The guest has no dpkg database: the version comes from the file
	// libibverbs.so.1 links to.
	target, err := os.Readlink("/usr/lib/x86_64-linux-gnu/libibverbs.so.1")
	if err != nil {
		t.Fatal(err)
	}
	if want := parseLibibverbsName(filepath.Base(target)); h.RDMACore.Version != want || want == "" || h.RDMACore.Source != "file name" {
		t.Errorf("rdma-core %+v; libibverbs.so.1 -> %s", h.RDMACore, target)
	}
	var uverbs *DevNode
	for i, n := range h.DevNodes {
		if n.Name == "uverbs0" {
			uverbs = &h.DevNodes[i]
		}
	}
	if uverbs == nil || !uverbs.CharDev || uverbs.Mode != "crw-rw-rw-" || !uverbs.WorldRW || uverbs.IBDev != labEnv(t, "LAB_DEV") {
		t.Errorf("/dev/infiniband/uverbs0: %+v (all: %+v)", uverbs, h.DevNodes)
	}
	// rxe's driver ABI is RXE_UVERBS_ABI_VERSION, 2 (include/uapi/rdma/rdma_user_rxe.h).
	if h.UverbsABI != 6 || h.DriverABIs["uverbs0"] != 2 {
		t.Errorf("uverbs ABI %d, driver ABIs %v; want 6 and uverbs0:2", h.UverbsABI, h.DriverABIs)
	}
	// Who we are, as the kernel says through the syscalls.
	if c := h.Cred; c == nil || c.UID != os.Geteuid() || c.GID != os.Getegid() || !c.HasCap(CapIPCLock) {
		t.Errorf("cred %+v; geteuid %d, getegid %d (root with CAP_IPC_LOCK)", c, os.Geteuid(), os.Getegid())
	}
	// libibverbs' configuration is what the guest has on disk.
	if conf, err := os.ReadFile("/etc/libibverbs.d/rxe.driver"); err != nil || strings.TrimSpace(string(conf)) != "driver rxe" ||
		!h.VerbsConf.DirFound || !h.VerbsConf.HasDriver("rxe") || !h.VerbsConf.HasProvider("rxe") {
		t.Errorf("verbs conf %+v; rxe.driver %q, %v", h.VerbsConf, conf, err)
	}
	ls, _ := exec.Command("ls", "-l", "/dev/infiniband").CombinedOutput()
	for _, n := range h.DevNodes {
		if !strings.Contains(string(ls), n.Mode) {
			t.Errorf("%s mode %s not in ls -l:\n%s", n.Name, n.Mode, ls)
		}
	}
	t.Logf("host: %s", h)
}

func TestLabIRQs(t *testing.T) {
	labkit.Clean(t)
	f := labFS(t)
	s, err := f.IRQs()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("/proc/interrupts warnings: %v", s.Warnings)
	}
	if len(s.Devices) != 1 || s.Devices[0].Device != labEnv(t, "LAB_DEV") || !s.Devices[0].Soft ||
		len(s.Devices[0].IRQs) != 0 || !strings.HasPrefix(s.Devices[0].NoIRQs, "software device on veth0") {
		t.Errorf("rxe0's IRQs: %+v", s.Devices)
	}
	// Every numbered row of /proc/interrupts is parsed, as the shell counts them.
	in, ws, err := f.readInterrupts()
	if err != nil || len(ws) != 0 {
		t.Fatal(err, ws)
	}
	out, err := exec.Command("sh", "-c", `grep -c '^ *[0-9][0-9]*:' /proc/interrupts; grep -c '^CPU\|CPU[0-9]' /proc/interrupts; nproc`).Output()
	if err != nil {
		t.Fatal(err)
	}
	f3 := strings.Fields(string(out))
	rows := 0
	for _, l := range in.Lines {
		if l.Num >= 0 {
			rows++
		}
	}
	if strconv.Itoa(rows) != f3[0] || strconv.Itoa(len(in.CPUs)) != f3[2] {
		t.Errorf("parsed %d numbered rows for %d CPUs; the shell counts %s rows, nproc %s", rows, len(in.CPUs), f3[0], f3[2])
	}
}

// pingpong runs an ibv_rc_pingpong server and client on rxe0 until ctx
// ends, as traffic for the counters, and returns once its packets move
// the port's sent_pkts (the pair connected, in RTS), not after a pause
// a loaded host can outlast.
func pingpong(t *testing.T, ctx context.Context, f *FS) {
	t.Helper()
	gid := labEnv(t, "LAB_GID_INDEX")
	dev := labEnv(t, "LAB_DEV")
	srv := exec.CommandContext(ctx, "ibv_rc_pingpong", "-d", dev, "-g", gid, "-n", "10000000")
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	labkit.WaitListening(t, "ibv_rc_pingpong", 18515) // the client connects once
	cli := exec.CommandContext(ctx, "ibv_rc_pingpong", "-d", dev, "-g", gid, "-n", "10000000", labEnv(t, "LAB_IP"))
	if err := cli.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cli.Wait()
		_ = srv.Wait()
	})
	before, err := f.Counters()
	if err != nil {
		t.Fatal(err)
	}
	labkit.WaitFor(t, labkit.Step, "ibv_rc_pingpong's packets in sent_pkts", func() bool {
		now, err := f.Counters()
		if err != nil {
			return false
		}
		rates, err := CounterRates(before, now)
		if err != nil {
			return false
		}
		for _, r := range rates {
			if r.Name == "sent_pkts" && r.Delta > 0 {
				return true
			}
		}
		return false
	})
}

func TestLabCountersMove(t *testing.T) {
	labkit.Clean(t)
	f := labFS(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pingpong(t, ctx, f)
	a, err := f.Counters()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	b, err := f.Counters()
	if err != nil {
		t.Fatal(err)
	}
	rates, err := CounterRates(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]CounterRate{}
	for _, r := range rates {
		got[r.Name] = r
		if r.Group != "hw_counters" {
			t.Errorf("rxe has no counters/, got %+v", r)
		}
	}
	// Never assert error counters are zero: TCG is slow enough for
	// retransmissions.
	for _, n := range []string{"rcvd_pkts", "sent_pkts"} {
		if r, ok := got[n]; !ok || r.Rate <= 0 || r.Delta == 0 {
			t.Errorf("%s during ibv_rc_pingpong: %+v, want a rate > 0", n, r)
		}
	}
	if len(a.Warnings)+len(b.Warnings) != 0 {
		t.Errorf("warnings: %v %v", a.Warnings, b.Warnings)
	}
	t.Logf("sent_pkts %.0f/s, rcvd_pkts %.0f/s", got["sent_pkts"].Rate, got["rcvd_pkts"].Rate)
}

func TestLabPoll(t *testing.T) {
	labkit.Clean(t)
	f := labFS(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pingpong(t, ctx, f)
	pctx, pcancel := context.WithTimeout(ctx, labkit.Run)
	defer pcancel()
	var ups []Update
	for u := range f.Watch(pctx, WatchOptions{Interval: 500 * time.Millisecond}).Updates() {
		ups = append(ups, u)
		if len(ups) == 3 {
			pcancel()
		}
	}
	if len(ups) < 3 {
		t.Fatalf("%d updates in %v", len(ups), labkit.Run)
	}
	// The pause runs from the end of one reading to the start of the
	// next: two cannot take less than two pauses.
	if d := ups[2].Time.Sub(ups[0].Time); d < time.Second {
		t.Errorf("three updates within %v, at a 500ms interval", d)
	}
	// Interval is the time between this update's counters and the
	// previous one's, however long a loaded host made it.
	for i, u := range ups[1:3] {
		if u.Err != nil || len(u.Devices) != 1 || u.Interval <= 0 || u.Interval != u.Time.Sub(ups[i].Time) {
			t.Errorf("update %d: err %v, %d devices, interval %v, %v after the previous", u.Seq, u.Err, len(u.Devices), u.Interval, u.Time.Sub(ups[i].Time))
		}
		var sent *CounterRate
		for i := range u.CounterRates {
			if u.CounterRates[i].Name == "sent_pkts" {
				sent = &u.CounterRates[i]
			}
		}
		if sent == nil || sent.Delta == 0 {
			t.Errorf("update %d: sent_pkts did not move: %+v", u.Seq, sent)
			continue
		}
		if want := float64(sent.Delta) / u.Interval.Seconds(); sent.Rate < want*0.99 || sent.Rate > want*1.01 {
			t.Errorf("update %d: rate %.1f for delta %d over %v", u.Seq, sent.Rate, sent.Delta, u.Interval)
		}
		t.Logf("update %d after %v: sent_pkts +%d (%.0f/s)", u.Seq, u.Interval, sent.Delta, sent.Rate)
	}
}

// TestLabWatchKeepsFiles: the dashboard's cadence (full readings every
// few ticks, counters through files kept open, GID tables kept while
// nothing changes) reads what one-shot readings read, and the counters
// keep moving on the ticks between full readings.
func TestLabWatchKeepsFiles(t *testing.T) {
	labkit.Clean(t)
	f := labFS(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pingpong(t, ctx, f)
	pctx, pcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer pcancel()
	var ups []Update
	for u := range f.Watch(pctx, WatchOptions{Interval: 300 * time.Millisecond, FullEvery: 3}).Updates() {
		ups = append(ups, u)
		if len(ups) == 8 {
			break
		}
	}
	if len(ups) < 8 {
		t.Fatalf("%d updates in two minutes", len(ups))
	}
	direct, err := f.Counters()
	if err != nil {
		t.Fatal(err)
	}
	devs, err := f.Devices()
	if err != nil {
		t.Fatal(err)
	}
	names := func(s *CounterSnapshot) (out []string) {
		for _, c := range s.Counters {
			out = append(out, c.Key())
		}
		return out
	}
	last := map[string]uint64{}
	var between []uint64 // sent_pkts on the ticks between full readings
	for _, u := range ups {
		if u.Err != nil || u.Counters == nil {
			t.Fatalf("update %d: %v", u.Seq, u.Err)
		}
		if diff := cmp.Diff(names(direct), names(u.Counters)); diff != "" {
			t.Errorf("update %d reads other counters than Counters (-direct +poll):\n%s", u.Seq, diff)
		}
		for _, c := range u.Counters.Counters {
			if c.Value < last[c.Key()] {
				t.Errorf("update %d: %s went back from %d to %d", u.Seq, c.Key(), last[c.Key()], c.Value)
			}
			last[c.Key()] = c.Value
		}
		if diff := cmp.Diff(devs[0].Ports[0].GIDs, u.Devices[0].Ports[0].GIDs); diff != "" {
			t.Errorf("update %d: GIDs differ from a direct reading (-direct +poll):\n%s", u.Seq, diff)
		}
		if u.Seq%3 != 0 {
			for _, c := range u.Counters.Counters {
				if c.Name == "sent_pkts" {
					between = append(between, c.Value)
				}
			}
		}
	}
	// Only the whole run must show the kept files being read afresh:
	// two readings can fall between two sends of the pingpong.
	if len(between) < 4 || between[len(between)-1] <= between[0] {
		t.Errorf("sent_pkts on the ticks between full readings: %v, want it to grow", between)
	}
	for _, c := range direct.Counters {
		if c.Value < last[c.Key()] {
			t.Errorf("%s: %d read directly after the poll, less than the poll's %d", c.Key(), c.Value, last[c.Key()])
		}
	}
}
