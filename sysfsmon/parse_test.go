package sysfsmon

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseState(t *testing.T) {
	for _, tc := range []struct {
		in   string
		num  int
		name string
		ok   bool
	}{
		{"4: ACTIVE", 4, "ACTIVE", true},
		{"5: LinkUp\n", 5, "LinkUp", true},
		{"1: CA", 1, "CA", true},
		{"4: ACTIVE_DEFER", 4, "ACTIVE_DEFER", true},
		{"ACTIVE", 0, "", false},
		{"x: ACTIVE", 0, "", false},
		{"4:", 0, "", false},
		{"-1: DOWN", 0, "", false},
		{"", 0, "", false},
	} {
		n, name, err := parseState(tc.in)
		if (err == nil) != tc.ok || n != tc.num || name != tc.name {
			t.Errorf("parseState(%q) = %d, %q, %v; want %d, %q, ok=%v", tc.in, n, name, err, tc.num, tc.name, tc.ok)
		}
	}
}

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
		ok   bool
	}{
		{"10 Gb/sec (1X FDR10)", Rate{10, "1X", "FDR10"}, true},
		{"100 Gb/sec (4X EDR)\n", Rate{100, "4X", "EDR"}, true},
		{"2.5 Gb/sec (1X)", Rate{2.5, "1X", ""}, true},
		{"400 Gb/sec (4X NDR)", Rate{400, "4X", "NDR"}, true},
		{"56 Gb/sec (4X FDR)", Rate{56, "4X", "FDR"}, true},
		{"fast", Rate{}, false},
		{"10 Gb/sec", Rate{}, false},
		{"10 Gb/sec ()", Rate{}, false},
		{"10 Gb/sec (X FDR)", Rate{}, false},
		{"10 Gb/sec (0X FDR)", Rate{}, false},
		{"10 Gb/sec (1X FDR extra)", Rate{}, false},
		{"NaN Gb/sec (1X)", Rate{}, false},
		{"-1 Gb/sec (1X)", Rate{}, false},
	} {
		got, err := parseRate(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseRate(%q) = %+v, %v; want %+v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseGID(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"fe80:0000:0000:0000:bc8a:ccff:fe52:0a47", "fe80::bc8a:ccff:fe52:a47"},
		{"0000:0000:0000:0000:0000:ffff:0a00:0001\n", "::ffff:10.0.0.1"},
		{"0000:0000:0000:0000:0000:0000:0000:0000", "::"},
		{"fe80::1", ""},
		{"fe80:0000:0000:0000:bc8a:ccff:fe52", ""},
		{"fe80:0000:0000:0000:bc8a:ccff:fe52:0a4", ""},
		{"fe80:0000:0000:0000:bc8a:ccff:fe52:0a4g", ""},
		{"+e80:0000:0000:0000:bc8a:ccff:fe52:0a47", ""},
	} {
		a, err := parseGID(tc.in)
		got := ""
		if err == nil {
			got = a.String()
		}
		if got != tc.want {
			t.Errorf("parseGID(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseCPUListAndMask(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"0-3,8", []int{0, 1, 2, 3, 8}, true},
		{"1\n", []int{1}, true},
		{"", nil, true},
		{"0-1,3-4", []int{0, 1, 3, 4}, true},
		{"3-1", nil, false},
		{"a", nil, false},
		{"0-", nil, false},
		{"0,,1", nil, false},
		{"0-4294967295", nil, false},
		{"-1", nil, false},
	} {
		got, err := parseCPUList(tc.in)
		if (err == nil) != tc.ok || !cmp.Equal(got, tc.want) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
		if tc.ok {
			if s := formatCPUList(got); s != strings.TrimSpace(tc.in) {
				t.Errorf("FormatCPUList(%v) = %q, want %q", got, s, tc.in)
			}
		}
	}
	for _, tc := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"3", []int{0, 1}, true},
		{"00000000", nil, true},
		{"ff,00000001", []int{0, 32, 33, 34, 35, 36, 37, 38, 39}, true},
		{"80000000", []int{31}, true},
		{"", nil, false},
		{"g", nil, false},
		{"123456789", nil, false},
		{"1,,1", nil, false},
	} {
		got, err := parseCPUMask(tc.in)
		if (err == nil) != tc.ok || !cmp.Equal(got, tc.want) {
			t.Errorf("parseCPUMask(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestIsErrorCounter(t *testing.T) {
	for name, want := range map[string]bool{
		"symbol_error": true, "port_rcv_errors": true, "port_xmit_discards": true,
		"VL15_dropped": true, "link_downed": true, "retry_exceeded_err": true, "out_of_buffer": true,
		"link_error_recovery": true, "excessive_buffer_overrun_errors": true, "req_cqe_error": true,
		"req_remote_invalid_request": true, "req_rnr_retries_exceeded": true,
		// Retries are the protocol recovering, whatever _err their names carry.
		"rcvd_seq_err": false, "out_of_sequence": false, "out_of_seq_request": false, "local_ack_timeout_err": false,
		"rnr_nak_retry_err": false, "rcvd_rnr_err": false,
		"ack_deferred": false, "rcvd_pkts": false, "port_xmit_data": false, "duplicate_request": false,
		"rdma_sends": false, "np_cnp_sent": false,
		// Unknown is not guessed from the name.
		"interrupts": false, "some_new_err": false,
	} {
		if got := IsErrorCounter(name); got != want {
			t.Errorf("IsErrorCounter(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParseInterrupts(t *testing.T) {
	in := `           CPU0       CPU1       
  0:        105          0   IO-APIC   2-edge      timer
 25:      47980          1   PCI-MSI 49153-edge      virtio0-input.0
 27:          3          4   GICv3  27 Level     arch_timer
 40:          1          2   IR-PCI-MSIX-0000:3b:00.0    0-edge      mlx5_async0@pci:0000:3b:00.0, other
 41:          7
NMI:          0          0   Non-maskable interrupts
ERR:          0
not a row
`
	got, err := parseInterrupts(in)
	want := interrupts{CPUs: []int{0, 1}, Lines: []interruptLine{
		{IRQ: "0", Num: 0, Counts: []uint64{105, 0}, Chip: "IO-APIC", HWIRQ: "2-edge", Name: "timer"},
		{IRQ: "25", Num: 25, Counts: []uint64{47980, 1}, Chip: "PCI-MSI", HWIRQ: "49153-edge", Name: "virtio0-input.0"},
		{IRQ: "27", Num: 27, Counts: []uint64{3, 4}, Chip: "GICv3", HWIRQ: "27 Level", Name: "arch_timer"},
		{IRQ: "40", Num: 40, Counts: []uint64{1, 2}, Chip: "IR-PCI-MSIX-0000:3b:00.0", HWIRQ: "0-edge", Name: "mlx5_async0@pci:0000:3b:00.0, other"},
		{IRQ: "41", Num: 41, Counts: []uint64{7}},
		{IRQ: "NMI", Num: -1, Counts: []uint64{0, 0}, Name: "Non-maskable interrupts"},
		{IRQ: "ERR", Num: -1, Counts: []uint64{0}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseInterrupts (-want +got):\n%s", diff)
	}
	if err == nil || !strings.Contains(err.Error(), `line 9: "not a row"`) {
		t.Errorf("error for the odd row: %v", err)
	}
	if got.Lines[1].total() != 47981 {
		t.Errorf("Total = %d", got.Lines[1].total())
	}
	for _, bad := range []string{"", "garbage", "CPU0 CPUx\n", "  \n 0: 1\n"} {
		if _, err := parseInterrupts(bad); err == nil {
			t.Errorf("parseInterrupts(%q): no error", bad)
		}
	}
}

func TestParseModules(t *testing.T) {
	got, err := parseModules(`ib_core 442368 7 rdma_ucm,ib_uverbs, Live 0xffffffffc0206000
mlx5_core 2113536 1 mlx5_ib, Live 0xffffffffc0800000 (OE)
veth 36864 0 - Live 0xffffffffc0354000
nounload 100 - - Unloading 0x0
broken 12
bad x 1 - Live 0x0
`)
	want := []Module{
		{Name: "ib_core", Size: 442368, Refs: 7, UsedBy: []string{"rdma_ucm", "ib_uverbs"}, State: "Live"},
		{Name: "mlx5_core", Size: 2113536, Refs: 1, UsedBy: []string{"mlx5_ib"}, State: "Live"},
		{Name: "veth", Size: 36864, State: "Live"},
		{Name: "nounload", Size: 100, Refs: -1, State: "Unloading"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseModules (-want +got):\n%s", diff)
	}
	if err == nil || !strings.Contains(err.Error(), "line 5") || !strings.Contains(err.Error(), "line 6") {
		t.Errorf("errors for the two bad lines: %v", err)
	}
}

func TestParseMemlock(t *testing.T) {
	for _, tc := range []struct {
		in         string
		soft, hard Limit
		ok         bool
	}{
		{"Limit  Soft Limit  Hard Limit  Units\nMax locked memory         8388608              8388608              bytes\n", Limit{Value: 8388608}, Limit{Value: 8388608}, true},
		{"Max locked memory         65536                unlimited            bytes", Limit{Value: 65536}, Limit{Unlimited: true}, true},
		{"Max locked memory         unlimited", Limit{}, Limit{}, false},
		{"Max locked memory         lots  lots bytes", Limit{}, Limit{}, false},
		{"Max open files 1024 4096 files", Limit{}, Limit{}, false},
	} {
		soft, hard, err := parseMemlock(tc.in)
		if (err == nil) != tc.ok || soft != tc.soft || hard != tc.hard {
			t.Errorf("parseMemlock(%q) = %v, %v, %v; want %v, %v, ok=%v", tc.in, soft, hard, err, tc.soft, tc.hard, tc.ok)
		}
	}
	if s := (Limit{Unlimited: true}).String() + " " + (Limit{Value: 5}).String(); s != "unlimited 5" {
		t.Errorf("Limit.String: %q", s)
	}
}

func TestParseDpkgAndLibName(t *testing.T) {
	status := "Package: rdma-core\nStatus: install ok installed\nDescription: x\n more: y\nVersion: 44.0-2\n\nPackage: libibverbs1\nStatus: deinstall ok config-files\nVersion: 1\n"
	for pkg, want := range map[string]string{"rdma-core": "44.0-2", "libibverbs1": "", "nope": ""} {
		if got := parseDpkgVersion(status, pkg); got != want {
			t.Errorf("parseDpkgVersion(%s) = %q, want %q", pkg, got, want)
		}
	}
	for name, want := range map[string]string{
		"libibverbs.so.1.14.44.0": "44.0", "libibverbs.so.1.14.50.1": "50.1", "libibverbs.so.1": "",
		"libibverbs.so.1.14": "", "libibverbs.so.1.x.44.0": "", "librdmacm.so.1.3.44.0": "",
	} {
		if got := parseLibibverbsName(name); got != want {
			t.Errorf("parseLibibverbsName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestContainsToken(t *testing.T) {
	for _, tc := range []struct {
		s, tok string
		want   bool
	}{
		{"eth0-TxRx-0", "eth0", true},
		{"veth0", "eth0", false},
		{"eth01", "eth0", false},
		{"mlx5_comp0@pci:0000:3b:00.0", "0000:3b:00.0", true},
		{"mlx5_comp0@pci:0000:3b:00.1", "0000:3b:00.0", false},
		{"veth0 eth0", "eth0", true},
		{"anything", "", false},
	} {
		if got := containsToken(tc.s, tc.tok); got != tc.want {
			t.Errorf("containsToken(%q, %q) = %v", tc.s, tc.tok, got)
		}
	}
}
