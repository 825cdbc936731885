package sysfsmon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/view"
)

// liveTree writes a small sysfs tree laid out as a live system's: the
// class entries are symlinks into /sys/devices, one device (mlx5_7)
// without a device link, one (i40iw0) whose port answers no PMA and has
// no lid or sm_lid files, one (ib0dev) an ACTIVE InfiniBand port whose
// LID is 0.
func liveTree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	sys := filepath.Join(root, "sys")
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(path, text string) {
		t.Helper()
		p := filepath.Join(sys, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, path string) {
		t.Helper()
		p := filepath.Join(sys, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	pci := "devices/pci0000:00/0000:00:02.0/0000:3b:00.0"
	write(pci+"/numa_node", "1\n")
	write("bus/pci/drivers/mlx5_core/.keep", "")
	link("../../../../bus/pci/drivers/mlx5_core", pci+"/driver")
	dev := pci + "/infiniband/mlx5_7"
	write(dev+"/node_type", "1: CA\n")
	write(dev+"/ports/1/state", "4: ACTIVE\n")
	write(dev+"/ports/1/link_layer", "Ethernet\n")
	write(dev+"/ports/1/hw_counters/rnr_nak_retry_err", "5\n")
	write(dev+"/ports/1/hw_counters/req_remote_invalid_request", "1\n")
	write(dev+"/ports/1/hw_counters/some_future_counter", "2\n")
	link("../../"+dev, "class/infiniband/mlx5_7")

	i40 := "devices/pci0000:00/0000:00:03.0/0000:5e:00.0/infiniband/i40iw0"
	write(i40+"/ports/1/state", "4: ACTIVE\n")
	write(i40+"/ports/1/link_layer", "Ethernet\n")
	for _, n := range []string{"symbol_error", "port_rcv_errors", "port_xmit_data"} {
		write(i40+"/ports/1/counters/"+n, "N/A (no PMA)\n")
	}
	link("../../"+i40, "class/infiniband/i40iw0")

	ib := "devices/pci0000:00/0000:00:04.0/0000:af:00.0/infiniband/ib0dev"
	write(ib+"/ports/1/state", "4: ACTIVE\n")
	write(ib+"/ports/1/link_layer", "InfiniBand\n")
	write(ib+"/ports/1/lid", "0x0\n")
	write(ib+"/ports/1/sm_lid", "0x0\n")
	link("../../"+ib, "class/infiniband/ib0dev")
	return root
}

func TestLiveClassSymlinks(t *testing.T) {
	root := liveTree(t)
	f, err := NewFS(filepath.Join(root, "sys"), filepath.Join(root, "proc"))
	if err != nil {
		t.Fatal(err)
	}
	devs, err := f.Devices()
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]Device{}
	for _, d := range devs {
		by[d.Name] = d
	}
	m := by["mlx5_7"]
	if m.PCI != "0000:3b:00.0" || m.Soft || m.Module != "mlx5_core" || m.Driver != "mlx5" || m.NUMANode == nil || *m.NUMANode != 1 {
		t.Errorf("mlx5_7 without a device link: pci %q soft %v module %q driver %q numa %v; want its PCI function from the class symlink",
			m.PCI, m.Soft, m.Module, m.Driver, m.NUMANode)
	}
	if d := by["i40iw0"]; d.Driver != "i40iw" || d.PCI != "0000:5e:00.0" {
		t.Errorf("i40iw0: driver %q pci %q", d.Driver, d.PCI)
	}

	// A missing lid/sm_lid is unknown; an ACTIVE IB port's LID 0 says no SM.
	p := by["i40iw0"].Ports[0]
	if p.LIDKnown || p.SMLIDKnown {
		t.Errorf("i40iw0 has no lid files, yet LIDKnown %v SMLIDKnown %v", p.LIDKnown, p.SMLIDKnown)
	}
	row := p.Row()
	if js := string(row.AppendJSON(nil)); !strings.Contains(js, `"lid":null`) || !strings.Contains(js, `"sm_lid":null`) {
		t.Errorf("unknown LIDs must be null in -j: %s", js)
	}
	if txt := rowText(row, "LID"); txt != "?" {
		t.Errorf("unknown LID shown as %q, want ?", txt)
	}
	ibp := by["ib0dev"].Ports[0]
	if txt := rowText(ibp.Row(), "LID"); txt != "0x0 (no SM)" {
		t.Errorf("ACTIVE IB port with LID 0 shown as %q, want 0x0 (no SM)", txt)
	}
	if js := string(ibp.Row().AppendJSON(nil)); !strings.Contains(js, `"lid":0,`) {
		t.Errorf("a known LID 0 stays 0 in -j: %s", js)
	}
}

func TestUnavailableCounters(t *testing.T) {
	root := liveTree(t)
	f, err := NewFS(filepath.Join(root, "sys"), filepath.Join(root, "proc"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := f.Counters()
	if err != nil {
		t.Fatal(err)
	}
	var na []string
	for _, c := range s.Counters {
		if c.Unavailable {
			na = append(na, c.Device+"/"+c.Name)
		}
	}
	if strings.Join(na, " ") != "i40iw0/port_rcv_errors i40iw0/port_xmit_data i40iw0/symbol_error" {
		t.Errorf("unavailable counters: %v", na)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0].Err.Error(), "3 of its counters") || !strings.Contains(s.Warnings[0].Err.Error(), "no performance management agent") {
		t.Errorf("want one note for the port's 3 N/A counters, got %v", s.Warnings)
	}
	rates, err := CounterRates(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rates {
		js := string(r.Row(false).AppendJSON(nil))
		switch r.Name {
		case "symbol_error":
			if !strings.Contains(js, `"value":null`) || !strings.Contains(js, `"unavailable":true`) {
				t.Errorf("N/A counter in -j: %s", js)
			}
		case "req_remote_invalid_request":
			if !r.Error || rowText(r.Row(false), "ERR") != "!" || !strings.Contains(js, `"class":"error"`) || !strings.Contains(js, `"terminal":true`) || !strings.Contains(js, `"side":"requester"`) || !strings.Contains(js, `"bits":32`) {
				t.Errorf("req_remote_invalid_request must be marked, terminal: %s", js)
			}
		case "rnr_nak_retry_err":
			if r.Error || !strings.Contains(js, `"class":"retry"`) || !strings.Contains(js, `"terminal":false`) {
				t.Errorf("rnr_nak_retry_err is a retry, not an error: %s", js)
			}
		case "some_future_counter":
			if r.Error || !strings.Contains(js, `"known":false`) || !strings.Contains(rowText(r.Row(false), "MEANING"), "unknown") {
				t.Errorf("an unknown counter is shown unknown: %s", js)
			}
		}
	}
}

// rowText is the text of the row's column headed header.
func rowText(r view.Row, header string) string {
	for _, f := range r {
		if f.TextKey == header && !f.NoText {
			return f.Text
		}
	}
	return ""
}
