package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/internal/oracle"
	"github.com/verbscope/verbscope/sysfsmon"
)

// speedCodes are ibv_port_attr.active_speed's codes for the speed names
// the kernel prints in ports/N/rate.
var speedCodes = map[string]int{"SDR": 1, "": 1, "DDR": 2, "QDR": 4, "FDR10": 8, "FDR": 16, "EDR": 32, "HDR": 64, "NDR": 128, "XDR": 256}

// compareWithDevinfo checks `devices -j` and `ports -j` output against
// `ibv_devinfo -v` field by field and returns how many values it compared.
// gidTable says whether the sysfs GID table is whole (not on the trimmed
// recording) so gid_tbl_len can be compared too.
func compareWithDevinfo(t *testing.T, devicesJSON, portsJSON string, di *oracle.Devinfo, gidTable bool) int {
	t.Helper()
	var devs []sysfsmon.Device
	var ports []sysfsmon.Port
	if err := json.Unmarshal([]byte(devicesJSON), &devs); err != nil {
		t.Fatalf("devices -j: %v\n%s", err, devicesJSON)
	}
	if err := json.Unmarshal([]byte(portsJSON), &ports); err != nil {
		t.Fatalf("ports -j: %v\n%s", err, portsJSON)
	}
	if len(devs) == 0 || len(devs) != len(di.Devices) {
		t.Fatalf("devices -j lists %d devices, ibv_devinfo %d", len(devs), len(di.Devices))
	}
	compared := 0
	for i, od := range di.Devices {
		d := devs[i]
		if d.Name != od.HCAID {
			t.Fatalf("device %d: %s, ibv_devinfo says %s", i, d.Name, od.HCAID)
		}
		fw := d.FWVer
		if fw == "" {
			// rxe's kernel driver has no firmware version (empty fw_ver);
			// its libibverbs provider prints its zero raw_fw_ver as 0.0.0.
			fw = "0.0.0"
		}
		got := map[string]string{
			"node_guid": d.NodeGUID, "sys_image_guid": d.SysImageGUID, "fw_ver": fw,
			"phys_port_cnt": strconv.Itoa(len(d.Ports)),
		}
		if d.BoardID != "" {
			got["board_id"] = d.BoardID
		}
		compared += diffFields(t, d.Name, od.Fields, got)
		for _, op := range od.Ports {
			var p *sysfsmon.Port
			for j := range ports {
				if ports[j].Device == d.Name && ports[j].Port == op.Port {
					p = &ports[j]
				}
			}
			if p == nil {
				t.Errorf("%s port %d: not in ports -j", d.Name, op.Port)
				continue
			}
			_, speed := oracle.Value(op.Fields["active_speed"])
			width, _ := oracle.Value(op.Fields["active_width"])
			_, phys := oracle.Value(op.Fields["phys_state"])
			gotPort := map[string]string{
				"state":          fmt.Sprintf("PORT_%s (%d)", p.StateName, p.State),
				"phys_state":     strconv.Itoa(int(p.PhysState)),
				"sm_lid":         strconv.Itoa(int(p.SMLID)),
				"port_lid":       strconv.Itoa(int(p.LID)),
				"port_lmc":       fmt.Sprintf("0x%02x", p.LMC),
				"sm_sl":          strconv.Itoa(int(p.SMSL)),
				"link_layer":     p.LinkLayer,
				"port_cap_flags": fmt.Sprintf("0x%08x", p.CapMask),
				"pkey_tbl_len":   strconv.Itoa(p.PKeyTableLen),
				"active_width":   p.Width,
				"active_speed":   strconv.Itoa(speedCodes[p.Speed]),
			}
			wantPort := map[string]string{}
			for k := range gotPort {
				wantPort[k] = op.Fields[k]
			}
			wantPort["phys_state"], wantPort["active_width"], wantPort["active_speed"] = strconv.Itoa(phys), width, strconv.Itoa(speed)
			if gidTable {
				gotPort["gid_tbl_len"], wantPort["gid_tbl_len"] = strconv.Itoa(p.GIDTableLen), op.Fields["gid_tbl_len"]
			}
			compared += diffFields(t, fmt.Sprintf("%s port %d", d.Name, p.Port), wantPort, gotPort)
			var gotGIDs []oracle.DevinfoGID
			for _, g := range p.GIDs {
				typ := g.Type
				if typ == "IB/RoCE v1" {
					typ = "RoCE v1"
				}
				gotGIDs = append(gotGIDs, oracle.DevinfoGID{Index: g.Index, GID: g.Addr, Type: typ})
			}
			if len(op.GIDs) == 0 {
				t.Errorf("%s port %d: ibv_devinfo lists no GIDs", d.Name, p.Port)
			}
			if diff := cmp.Diff(op.GIDs, gotGIDs); diff != "" {
				t.Errorf("%s port %d GIDs (-ibv_devinfo +ports -j):\n%s", d.Name, p.Port, diff)
			}
			compared += len(op.GIDs)
		}
	}
	return compared
}

// diffFields compares got with the same keys of ibv_devinfo's fields.
func diffFields(t *testing.T, what string, oracleFields, got map[string]string) int {
	t.Helper()
	want := map[string]string{}
	for k := range got {
		want[k] = oracleFields[k]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-ibv_devinfo +verbscope):\n%s", what, diff)
	}
	return len(got)
}

// testdata of sysfsmon holds ibv_devinfo -v from the same boot as the
// recorded rxe0 tree.
func TestRecordedDevinfoAgrees(t *testing.T) {
	di := readDevinfo(t, rxe0Tree+"/ibv_devinfo.txt")
	_, devs, _ := runCLI(append([]string{"devices", "-j"}, fixtureArgs(rxe0Tree)...)...)
	_, ports, _ := runCLI(append([]string{"ports", "-j"}, fixtureArgs(rxe0Tree)...)...)
	n := compareWithDevinfo(t, devs, ports, di, false)
	if n < 15 {
		t.Errorf("compared only %d values", n)
	}
}

func readDevinfo(t *testing.T, path string) *oracle.Devinfo {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	di, err := oracle.ParseDevinfo(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return di
}
