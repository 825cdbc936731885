package sysfsmon

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/internal/testtree"
	"github.com/verbscope/verbscope/rdma"
)

// testdata/mlx5 is built by make-mlx5.sh: two mlx5 devices and an odd
// irdma0 whose bad files must not hide the others.
func TestMlx5Devices(t *testing.T) {
	devs, err := fixture(t, "mlx5").Devices()
	if err != nil {
		t.Fatal(err)
	}
	pkeyFull := []string{"0xffff"}
	ibPort := func(n int, state rdma.PortState, stateName string, phys rdma.PhysState, physName, rate string, r Rate, lid uint16, smLID uint16, gid string, pkeys []string, pkeyLen int, gidLen int) Port {
		a, _ := parseGID(gid)
		return Port{Device: "mlx5_0", Port: n, State: state, StateName: stateName, PhysState: phys, PhysStateName: physName,
			RateText: rate, Rate: r, LID: lid, SMLID: smLID, LIDKnown: true, SMLIDKnown: true, CapMask: 0xa651e848, LinkLayer: "InfiniBand",
			GIDTableLen: gidLen, GIDs: []GID{{Index: 0, GID: gid, Addr: a.String(), IP: a.String()}},
			RecommendedGIDIndex: 0, PKeyTableLen: pkeyLen, PKeys: pkeys}
	}
	roceGID := func(i int, gid, addr, ip, typ string) GID {
		return GID{Index: i, GID: gid, Addr: addr, IP: ip, IPv4: addr != ip, Type: typ, Netdev: "ens1f1np1"}
	}
	want := []Device{
		{
			Name: "irdma0", NodeGUID: "3cfd:feff:fe00:0001", SysImageGUID: "3cfd:feff:fe00:0001", FWVer: "1.52",
			PCI: "0000:5e:00.0", Driver: "irdma", NUMANode: intp(-1),
			// irdma0 has a lid file and no sm_lid: its SM LID is unknown, not 0.
			Ports: []Port{{Device: "irdma0", Port: 1, PhysState: 5, PhysStateName: "LinkUp", RateText: "fast", LinkLayer: "Ethernet", RecommendedGIDIndex: -1, LIDKnown: true}},
			Warnings: []Warning{
				{Path: "/sys/class/infiniband/irdma0/ports/1/state", Err: errors.New(`state "ACTIVE": want "N: NAME"`)},
				{Path: "/sys/class/infiniband/irdma0/ports/1/rate", Err: errors.New(`rate "fast": want "N Gb/sec (WX SPEED)"`)},
			},
		},
		{
			Name: "mlx5_0", NodeType: 1, NodeTypeName: "CA", NodeGUID: "0c42:a103:0012:3456", SysImageGUID: "0c42:a103:0012:3456",
			FWVer: "20.35.1012", HCAType: "MT4123", BoardID: "MT_0000000222", HWRev: "0x0", NodeDesc: "node1 HCA-1",
			PCI: "0000:3b:00.0", Driver: "mlx5", NUMANode: intp(0), LocalCPUs: "0-3", Netdevs: []string{"ibp59s0f0"}, Uverbs: "uverbs0",
			Ports: []Port{
				ibPort(1, 4, "ACTIVE", 5, "LinkUp", "100 Gb/sec (4X EDR)", Rate{100, "4X", "EDR"}, 0x12, 0x1,
					"fe80:0000:0000:0000:0c42:a103:0012:3456", []string{"0xffff", "0x8001"}, 3, 2),
				ibPort(2, 1, "DOWN", 3, "Disabled", "10 Gb/sec (4X SDR)", Rate{10, "4X", "SDR"}, 0xffff, 0,
					"fe80:0000:0000:0000:0c42:a103:0012:3457", pkeyFull, 1, 1),
			},
		},
		{
			Name: "mlx5_1", NodeType: 1, NodeTypeName: "CA", NodeGUID: "0c42:a103:0012:3458", SysImageGUID: "0c42:a103:0012:3456",
			FWVer: "20.35.1012", HCAType: "MT4123", BoardID: "MT_0000000222", HWRev: "0x0", NodeDesc: "node1 HCA-2",
			PCI: "0000:3b:00.1", Driver: "mlx5", NUMANode: intp(0), LocalCPUs: "0-3", Netdevs: []string{"ens1f1np1"}, Uverbs: "uverbs1",
			Ports: []Port{{
				Device: "mlx5_1", Port: 1, State: 4, StateName: "ACTIVE", PhysState: 5, PhysStateName: "LinkUp",
				RateText: "25 Gb/sec (1X EDR)", Rate: Rate{25, "1X", "EDR"}, LIDKnown: true, SMLIDKnown: true, CapMask: 0x00010000, LinkLayer: "Ethernet",
				Netdev: "ens1f1np1", NetdevMTU: 9000, NetdevState: "up", GIDTableLen: 5,
				GIDs: []GID{
					roceGID(0, "fe80:0000:0000:0000:0e42:a1ff:fe00:0002", "fe80::e42:a1ff:fe00:2", "fe80::e42:a1ff:fe00:2", "IB/RoCE v1"),
					roceGID(1, "fe80:0000:0000:0000:0e42:a1ff:fe00:0002", "fe80::e42:a1ff:fe00:2", "fe80::e42:a1ff:fe00:2", "RoCE v2"),
					roceGID(2, "0000:0000:0000:0000:0000:ffff:c0a8:0102", "::ffff:192.168.1.2", "192.168.1.2", "IB/RoCE v1"),
					roceGID(3, "0000:0000:0000:0000:0000:ffff:c0a8:0102", "::ffff:192.168.1.2", "192.168.1.2", "RoCE v2"),
				},
				RecommendedGIDIndex: 3, PKeyTableLen: 1, PKeys: pkeyFull,
			}},
		},
	}
	if diff := cmp.Diff(want, devs, cmpWarnings); diff != "" {
		t.Errorf("mlx5 devices (-want +got):\n%s", diff)
	}
}

func TestMlx5Counters(t *testing.T) {
	s, err := fixture(t, "mlx5").Counters()
	if err != nil {
		t.Fatal(err)
	}
	c := func(dev string, port int, group, name string, v uint64) Counter {
		drv := "mlx5"
		if dev == "irdma0" {
			drv = "irdma"
		}
		return Counter{Device: dev, Port: port, Group: group, Name: name, Value: v, Driver: drv, Error: counterAlarming(drv, name)}
	}
	na := c("irdma0", 1, "hw_counters", "ip4InPkts", 0)
	na.Unavailable = true
	want := &CounterSnapshot{
		Time: s.Time,
		Counters: []Counter{
			na, // "N/A": unavailable, listed
			c("irdma0", 1, "hw_counters", "ip4OutPkts", 12),
			c("mlx5_0", 1, "counters", "VL15_dropped", 0),
			c("mlx5_0", 1, "counters", "link_downed", 1),
			c("mlx5_0", 1, "counters", "port_rcv_data", 2000000),
			c("mlx5_0", 1, "counters", "port_rcv_errors", 0),
			c("mlx5_0", 1, "counters", "port_rcv_packets", 6000),
			c("mlx5_0", 1, "counters", "port_xmit_data", 1000000),
			c("mlx5_0", 1, "counters", "port_xmit_discards", 7),
			c("mlx5_0", 1, "counters", "port_xmit_packets", 5000),
			c("mlx5_0", 1, "counters", "symbol_error", 3),
			c("mlx5_0", 1, "hw_counters", "local_ack_timeout_err", 5),
			c("mlx5_0", 1, "hw_counters", "out_of_buffer", 11),
			c("mlx5_0", 1, "hw_counters", "out_of_sequence", 2),
			c("mlx5_0", 1, "hw_counters", "rx_write_requests", 400),
			c("mlx5_0", 2, "counters", "port_rcv_data", 0),
			c("mlx5_0", 2, "counters", "port_xmit_data", 0),
			c("mlx5_0", 2, "counters", "symbol_error", 0),
			c("mlx5_1", 0, "hw_counters", "cnp_handled", 9),
			c("mlx5_1", 0, "hw_counters", "req_cqe_error", 1),
			c("mlx5_1", 1, "counters", "port_rcv_data", 8000),
			c("mlx5_1", 1, "counters", "port_xmit_data", 4000),
			c("mlx5_1", 1, "hw_counters", "np_cnp_sent", 4),
			c("mlx5_1", 1, "hw_counters", "rnr_nak_retry_err", 0),
			c("mlx5_1", 1, "hw_counters", "rx_icrc_encapsulated", 0),
		},
		Warnings: []Warning{{Path: "/sys/class/infiniband/irdma0/ports/1/hw_counters", Err: errors.New(`1 of its counters cannot be read ("N/A"): shown as unavailable`)}},
	}
	if diff := cmp.Diff(want, s, cmpWarnings); diff != "" {
		t.Errorf("mlx5 counters (-want +got):\n%s", diff)
	}
}

func TestMlx5IRQs(t *testing.T) {
	s, err := fixture(t, "mlx5").IRQs()
	if err != nil {
		t.Fatal(err)
	}
	msix := func(irq int, name, hw string, counts []uint64, eff, hint string) IRQ {
		var total uint64
		for _, c := range counts {
			total += c
		}
		return IRQ{IRQ: irq, Name: name, Chip: "IR-PCI-MSIX-0000:3b:00.0", HWIRQ: hw, Mode: "msix", MatchedBy: "msi_irqs",
			Listed: true, Counts: counts, Total: total, Affinity: "0-3", Effective: eff, Hint: hint, Node: 0}
	}
	want := &IRQSnapshot{
		Time: s.Time, CPUs: []int{0, 1, 2, 3},
		Devices: []DeviceIRQs{
			{Device: "irdma0", PCI: "0000:5e:00.0", NUMANode: intp(-1), IRQs: []IRQ{
				{IRQ: 16, Name: "irdma", Chip: "IO-APIC", HWIRQ: "16-fasteoi", Mode: "intx", MatchedBy: "intx", Listed: true,
					Counts: []uint64{7, 0, 0, 0}, Total: 7, Affinity: "0-3", Effective: "0", Node: -1},
			}},
			{Device: "mlx5_0", PCI: "0000:3b:00.0", NUMANode: intp(0), Netdevs: []string{"ibp59s0f0"}, IRQs: []IRQ{
				msix(100, "mlx5_async0@pci:0000:3b:00.0", "0-edge", []uint64{5, 0, 0, 0}, "0", ""),
				msix(101, "mlx5_comp0@pci:0000:3b:00.0", "1-edge", []uint64{1000, 0, 0, 0}, "0", "0"),
				msix(102, "mlx5_comp1@pci:0000:3b:00.0", "2-edge", []uint64{0, 2000, 0, 0}, "1", "1"),
				msix(103, "mlx5_comp2@pci:0000:3b:00.0", "3-edge", []uint64{0, 0, 3000, 0}, "2", "2"),
			}},
			{Device: "mlx5_1", PCI: "0000:3b:00.1", NUMANode: intp(0), Netdevs: []string{"ens1f1np1"}, IRQs: []IRQ{
				{IRQ: 110, Name: "mlx5_comp0@pci:0000:3b:00.1", Chip: "IR-PCI-MSI", HWIRQ: "31457281-edge", MatchedBy: "pci", Listed: true,
					Counts: []uint64{50, 50, 50, 50}, Total: 200, Affinity: "0,2-3", Effective: "0", Node: 0},
				{IRQ: 111, Name: "ens1f1np1-TxRx-0", Chip: "IR-PCI-MSI", HWIRQ: "31457282-edge", MatchedBy: "netdev", Listed: true,
					Counts: []uint64{10, 0, 0, 0}, Total: 10, Affinity: "0-3", Effective: "0", Node: 0},
			}},
		},
		Warnings: []Warning{{Path: "/proc/interrupts", Err: errors.New(`interrupts: line 15: "garbage without a colon" does not start with "IRQ:"`)}},
	}
	if diff := cmp.Diff(want, s, cmpWarnings); diff != "" {
		t.Errorf("mlx5 IRQs (-want +got):\n%s", diff)
	}
}

// A hardware device with no vectors, no legacy line and no matching row
// says why instead of showing an empty list.
func TestIRQsNoneFound(t *testing.T) {
	dir := testtree.Copy(t, "testdata/mlx5")
	if err := os.WriteFile(filepath.Join(dir, "proc/interrupts"), []byte("  CPU0\n  0: 1 IO-APIC 2-edge timer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.IRQs()
	if err != nil {
		t.Fatal(err)
	}
	got := s.Devices[2] // mlx5_1: no msi_irqs/, no irq file
	if len(got.IRQs) != 0 || got.NoIRQs != "no MSI/MSI-X vectors, no legacy IRQ line, and no /proc/interrupts row names mlx5_1, ens1f1np1, 0000:3b:00.1: is the driver bound and the device up?" {
		t.Errorf("mlx5_1 without IRQs: %+v", got)
	}
	if err := os.Remove(filepath.Join(dir, "proc/interrupts")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.IRQs(); err == nil {
		t.Error("IRQs without /proc/interrupts: no error")
	}
}

func TestMlx5Host(t *testing.T) {
	h := fixture(t, "mlx5").Host()
	want := &Host{
		KernelRelease: "6.8.0-45-generic",
		KernelVersion: "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) #45-Ubuntu SMP PREEMPT_DYNAMIC",
		CPUs:          4,
		Modules: []Module{
			{Name: "ib_cm", Size: 139264, Refs: 1, UsedBy: []string{"rdma_cm"}, State: "Live"},
			{Name: "ib_core", Size: 442368, Refs: 5, UsedBy: []string{"mlx5_ib", "ib_uverbs", "rdma_ucm", "rdma_cm", "ib_cm"}, State: "Live"},
			{Name: "ib_uverbs", Size: 172032, Refs: 2, UsedBy: []string{"mlx5_ib", "rdma_ucm"}, State: "Live"},
			{Name: "mlx5_core", Size: 2113536, Refs: 1, UsedBy: []string{"mlx5_ib"}, State: "Live"},
			{Name: "mlx5_ib", Size: 466944, State: "Live"},
			{Name: "rdma_cm", Size: 139264, Refs: 1, UsedBy: []string{"rdma_ucm"}, State: "Live"},
			{Name: "rdma_ucm", Size: 32768, State: "Live"},
		},
		// rdma-core itself is only config-files here; libibverbs1 is installed.
		RDMACore:    RDMACore{Version: "50.0-2ubuntu0.2", Source: "dpkg", Detail: "libibverbs1"},
		MemlockSoft: Limit{Value: 65536}, MemlockHard: Limit{Unlimited: true},
		Cred: &Cred{UID: 1000, GID: 1000, Groups: []int{4, 27, 1000}},
		// irdma0's provider is not configured: the /etc/libibverbs.d gotcha.
		VerbsConf: VerbsConf{Dir: "/etc/libibverbs.d", DirFound: true,
			Drivers:     []VerbsDriver{{Name: "efa", File: "/etc/libibverbs.d/efa.driver"}, {Name: "mlx5", File: "/etc/libibverbs.d/mlx5.driver"}},
			ProviderDir: "/usr/lib/x86_64-linux-gnu/libibverbs", Providers: []string{"efa", "mlx5"}},
	}
	if diff := cmp.Diff(want, h, cmpWarnings); diff != "" {
		t.Errorf("mlx5 host (-want +got):\n%s", diff)
	}
	if h.HasModule("ib_umad") {
		t.Error("ib_umad reported loaded; the fixture lacks it (the checklist's usual omission)")
	}
}

func TestCounterRates(t *testing.T) {
	dir := testtree.Copy(t, "testdata/mlx5")
	f, err := NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	port := filepath.Join(dir, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0/ports/1")
	// out_of_sequence is a 32-bit q counter: 6 below its top, then 4.
	if err := os.WriteFile(filepath.Join(port, "hw_counters/out_of_sequence"), []byte("4294967290\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := f.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(port, "hw_counters/out_of_sequence"), []byte("4\n"), 0o644); err != nil { // wrapped
		t.Fatal(err)
	}
	testtree.Bump(t, filepath.Join(port, "counters/port_xmit_packets"), 500)
	testtree.Bump(t, filepath.Join(port, "hw_counters/out_of_buffer"), 3)
	if err := os.WriteFile(filepath.Join(port, "counters/symbol_error"), []byte("0\n"), 0o644); err != nil { // reset
		t.Fatal(err)
	}
	b, err := f.Counters()
	if err != nil {
		t.Fatal(err)
	}
	rates, err := CounterRates(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(rates) != len(b.Counters) {
		t.Fatalf("%d rates for %d counters", len(rates), len(b.Counters))
	}
	moved := map[string]CounterRate{}
	for _, r := range rates {
		if r.Delta != 0 || r.Reset {
			moved[r.Key()] = r
		}
	}
	want := map[string]CounterRate{
		"mlx5_0/1/counters/port_xmit_packets":  {Counter: Counter{Device: "mlx5_0", Port: 1, Group: "counters", Name: "port_xmit_packets", Value: 5500, Driver: "mlx5"}, Delta: 500, Rate: 500},
		"mlx5_0/1/hw_counters/out_of_buffer":   {Counter: Counter{Device: "mlx5_0", Port: 1, Group: "hw_counters", Name: "out_of_buffer", Value: 14, Error: true, Driver: "mlx5"}, Delta: 3, Rate: 3},
		"mlx5_0/1/hw_counters/out_of_sequence": {Counter: Counter{Device: "mlx5_0", Port: 1, Group: "hw_counters", Name: "out_of_sequence", Value: 4, Driver: "mlx5"}, Delta: 10, Rate: 10},
		// symbol_error saturates rather than wraps: going down is a reset.
		"mlx5_0/1/counters/symbol_error": {Counter: Counter{Device: "mlx5_0", Port: 1, Group: "counters", Name: "symbol_error", Value: 0, Error: true, Driver: "mlx5"}, Reset: true},
	}
	if diff := cmp.Diff(want, moved); diff != "" {
		t.Errorf("rates of changed counters (-want +got):\n%s", diff)
	}
	if _, err := CounterRates(b, a); !errors.Is(err, ErrInterval) {
		t.Errorf("rates backwards in time: %v, want ErrInterval", err)
	}
	// A first reading has values alone, as Update.CounterValues gives.
	first, err := CounterRates(nil, b)
	if err != nil || len(first) != len(b.Counters) || first[0].Counter != b.Counters[0] || first[0].Rate != 0 {
		t.Errorf("CounterRates(nil, b): %d rates (%v), first %+v; want b's %d values", len(first), err, first[0], len(b.Counters))
	}
	u := Update{Counters: b}
	if diff := cmp.Diff(first, u.CounterValues()); diff != "" {
		t.Errorf("CounterValues of a first reading (-want +got):\n%s", diff)
	}
	u.CounterRates = rates
	if diff := cmp.Diff(rates, u.CounterValues()); diff != "" {
		t.Errorf("CounterValues with rates (-want +got):\n%s", diff)
	}
}

func TestIRQRates(t *testing.T) {
	dir := testtree.Copy(t, "testdata/mlx5")
	f, err := NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	a, err := f.IRQs()
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "proc/interrupts")
	b0, _ := os.ReadFile(in)
	b1 := []byte(replaceOnce(t, string(b0), " 102:          0       2000", " 102:          0       2600"))
	if err := os.WriteFile(in, b1, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := f.IRQs()
	if err != nil {
		t.Fatal(err)
	}
	rates, err := IRQRates(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var got []IRQRate
	for _, r := range rates {
		if r.Delta > 0 {
			got = append(got, r)
		}
	}
	want := []IRQRate{{Device: "mlx5_0", IRQ: 102, Name: "mlx5_comp1@pci:0000:3b:00.0", PerCPU: []float64{0, 600, 0, 0}, Rate: 600, Delta: 600}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("IRQ rates (-want +got):\n%s", diff)
	}
	if len(rates) != 7 {
		t.Errorf("%d IRQ rates, want one per IRQ (7)", len(rates))
	}
	for i := range b.Devices {
		d := &b.Devices[i]
		for _, r := range d.RatesOf(rates) {
			if r.Device != d.Device {
				t.Errorf("%s's rates hold %s's IRQ %d", d.Device, r.Device, r.IRQ)
			}
		}
		if d.Device == "mlx5_0" && len(d.RatesOf(rates)) != len(d.IRQs) {
			t.Errorf("mlx5_0: %d rates for %d IRQs", len(d.RatesOf(rates)), len(d.IRQs))
		}
	}
	if _, err := IRQRates(b, a); !errors.Is(err, ErrInterval) {
		t.Errorf("IRQ rates backwards in time: %v, want ErrInterval", err)
	}
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	i := indexOf(s, old)
	if i < 0 {
		t.Fatalf("%q not in fixture", old)
	}
	return s[:i] + new + s[i+len(old):]
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
