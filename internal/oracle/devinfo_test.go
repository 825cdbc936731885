package oracle

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testdata/devinfo-rxe0.txt is `ibv_devinfo -v` recorded in the lab VM.
func TestParseDevinfoRecorded(t *testing.T) {
	data, err := os.ReadFile("testdata/devinfo-rxe0.txt")
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseDevinfo(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Devices) != 1 {
		t.Fatalf("devices: got %d, want 1", len(d.Devices))
	}
	dev := d.Devices[0]
	got := map[string]string{
		"hca_id": dev.HCAID, "node_guid": dev.Fields["node_guid"], "max_qp": dev.Fields["max_qp"],
		"max_cqe": dev.Fields["max_cqe"], "phys_port_cnt": dev.Fields["phys_port_cnt"], "atomic_cap": dev.Fields["atomic_cap"],
	}
	want := map[string]string{
		"hca_id": "rxe0", "node_guid": "04d6:14ff:feb1:8806", "max_qp": "1048560",
		"max_cqe": "32767", "phys_port_cnt": "1", "atomic_cap": "ATOMIC_HCA (1)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("device fields (-want +got):\n%s", diff)
	}
	if got := len(dev.Lists["device_cap_flags"]); got != 12 {
		t.Errorf("device_cap_flags names: got %d, want 12", got)
	}
	if len(dev.Ports) != 1 {
		t.Fatalf("ports: got %d, want 1", len(dev.Ports))
	}
	p := dev.Ports[0]
	if p.Port != 1 || p.Fields["state"] != "PORT_ACTIVE (4)" || p.Fields["link_layer"] != "Ethernet" || p.Fields["gid_tbl_len"] != "1024" {
		t.Errorf("port fields: %+v", p.Fields)
	}
	wantGIDs := []DevinfoGID{
		{Index: 0, GID: "fe80::4d6:14ff:feb1:8806", Type: "RoCE v2"},
		{Index: 1, GID: "::ffff:10.0.0.1", Type: "RoCE v2"},
	}
	if diff := cmp.Diff(wantGIDs, p.GIDs); diff != "" {
		t.Errorf("GIDs (-want +got):\n%s", diff)
	}
}

func TestParseDevinfoErrors(t *testing.T) {
	for _, in := range []string{
		"\tmax_qp:\t\t1\n",                 // field before hca_id
		"hca_id:\trxe0\n\t\tport:\tx\n",    // port not a number
		"hca_id:\trxe0\n\tGID[ 0]:\t::1\n", // GID outside a port
		"hca_id:\trxe0\nBOGUS\n",           // continuation without a field
		"hca_id:\trxe0\n\t\tport:\t1\n\t\t\tGID[zz]:\t::1\n",
	} {
		if _, err := ParseDevinfo(in); err == nil {
			t.Errorf("ParseDevinfo(%q): no error", in)
		}
	}
}

func TestValue(t *testing.T) {
	for _, tc := range []struct {
		in   string
		text string
		num  int
	}{
		{"PORT_ACTIVE (4)", "PORT_ACTIVE", 4},
		{"4096 (5)", "4096", 5},
		{"Ethernet", "Ethernet", -1},
		{"10.0 Gbps (8)", "10.0 Gbps", 8},
		{"odd (x)", "odd (x)", -1},
	} {
		text, num := Value(tc.in)
		if text != tc.text || num != tc.num {
			t.Errorf("Value(%q) = %q, %d; want %q, %d", tc.in, text, num, tc.text, tc.num)
		}
	}
}

func FuzzParseDevinfo(f *testing.F) {
	data, err := os.ReadFile("testdata/devinfo-rxe0.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Add("hca_id:\tx\n\t\tport:\t1\n\t\t\tGID[  0]:\t::1, IB\n")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDevinfo(s)
		if err == nil && d == nil {
			t.Fatal("nil result without error")
		}
	})
}
