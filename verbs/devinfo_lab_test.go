//go:build lab

package verbs

import (
	"fmt"
	"os/exec"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/oracle"
)

// TestDevinfoMatchesIbvDevinfo opens every device through this package and
// checks that what it reads equals what rdma-core's `ibv_devinfo -v` prints
// in the same boot.
func TestDevinfoMatchesIbvDevinfo(t *testing.T) {
	labkit.Clean(t)
	out, err := exec.Command("ibv_devinfo", "-v").CombinedOutput()
	if err != nil {
		t.Fatalf("ibv_devinfo -v: %v\n%s", err, out)
	}
	want, err := oracle.ParseDevinfo(string(out))
	if err != nil {
		t.Fatal(err)
	}
	devs, err := Devices()
	if err != nil {
		t.Fatalf("Devices: %v", err)
	}
	if len(devs) == 0 || len(devs) != len(want.Devices) {
		t.Fatalf("Devices: got %d devices, ibv_devinfo lists %d", len(devs), len(want.Devices))
	}
	compared := 0
	for i, oracleDev := range want.Devices {
		d := devs[i]
		if d.Name != oracleDev.HCAID {
			t.Fatalf("device %d: got %s, ibv_devinfo says %s", i, d.Name, oracleDev.HCAID)
		}
		ctx, err := Open(d.Name)
		if err != nil {
			t.Fatalf("Open(%s): %v", d.Name, err)
		}
		defer ctx.Close()
		attr, err := ctx.QueryDevice()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{
			"node_guid":      GUIDString(attr.NodeGUID),
			"sys_image_guid": GUIDString(attr.SysImageGUID),
			"fw_ver":         attr.FWVer,
			"max_qp":         strconv.Itoa(attr.MaxQP),
			"max_cqe":        strconv.Itoa(attr.MaxCQE),
			"max_mr":         strconv.Itoa(attr.MaxMR),
			"max_pd":         strconv.Itoa(attr.MaxPD),
			"max_qp_wr":      strconv.Itoa(attr.MaxQPWR),
			"max_sge":        strconv.Itoa(attr.MaxSGE),
			"phys_port_cnt":  strconv.Itoa(attr.PhysPortCnt),
			"atomic_cap":     fmt.Sprintf("%s (%d)", attr.AtomicCap, int(attr.AtomicCap)),
			"vendor_id":      fmt.Sprintf("0x%04x", attr.VendorID),
		}
		if n, err := ctx.NumCompVectors(); err != nil {
			t.Error(err)
		} else {
			got["num_comp_vectors"] = strconv.Itoa(n)
		}
		wantFields := map[string]string{}
		for k := range got {
			wantFields[k] = oracleDev.Fields[k]
		}
		if diff := cmp.Diff(wantFields, got); diff != "" {
			t.Errorf("%s device attributes (-ibv_devinfo +verbs):\n%s", d.Name, diff)
		}
		compared += len(got)
		if GUIDString(d.GUID) != oracleDev.Fields["node_guid"] {
			t.Errorf("%s: device list GUID %s, ibv_devinfo node_guid %s", d.Name, GUIDString(d.GUID), oracleDev.Fields["node_guid"])
		}
		if len(oracleDev.Ports) != attr.PhysPortCnt {
			t.Fatalf("%s: ibv_devinfo shows %d ports, phys_port_cnt is %d", d.Name, len(oracleDev.Ports), attr.PhysPortCnt)
		}
		gids, err := ctx.GIDTable()
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range oracleDev.Ports {
			pa, err := ctx.QueryPort(op.Port)
			if err != nil {
				t.Fatal(err)
			}
			gotPort := map[string]string{
				"state":        fmt.Sprintf("PORT_%s (%d)", pa.State, int(pa.State)),
				"max_mtu":      fmt.Sprintf("%s (%d)", pa.MaxMTU, int(pa.MaxMTU)),
				"active_mtu":   fmt.Sprintf("%s (%d)", pa.ActiveMTU, int(pa.ActiveMTU)),
				"link_layer":   pa.LinkLayer.String(),
				"gid_tbl_len":  strconv.Itoa(pa.GIDTblLen),
				"port_lid":     strconv.Itoa(int(pa.LID)),
				"sm_lid":       strconv.Itoa(int(pa.SMLID)),
				"phys_state":   fmt.Sprintf("%s (%d)", pa.PhysState, int(pa.PhysState)),
				"pkey_tbl_len": strconv.Itoa(pa.PKeyTblLen),
				"max_msg_sz":   fmt.Sprintf("0x%x", pa.MaxMsgSz),
			}
			wantPort := map[string]string{}
			for k := range gotPort {
				wantPort[k] = op.Fields[k]
			}
			if diff := cmp.Diff(wantPort, gotPort); diff != "" {
				t.Errorf("%s port %d attributes (-ibv_devinfo +verbs):\n%s", d.Name, op.Port, diff)
			}
			compared += len(gotPort)

			var gotGIDs []oracle.DevinfoGID
			for _, g := range gids {
				if g.Port == op.Port {
					gotGIDs = append(gotGIDs, oracle.DevinfoGID{Index: g.Index, GID: g.GID.String(), Type: g.Type.String()})
				}
			}
			if len(op.GIDs) == 0 {
				t.Errorf("%s port %d: ibv_devinfo lists no GIDs; rxe always has at least the link-local one", d.Name, op.Port)
			}
			if diff := cmp.Diff(op.GIDs, gotGIDs); diff != "" {
				t.Errorf("%s port %d GID table (-ibv_devinfo +verbs):\n%s", d.Name, op.Port, diff)
			}
			for _, g := range op.GIDs {
				one, err := ctx.QueryGID(op.Port, g.Index)
				if err != nil {
					t.Errorf("QueryGID(%d, %d): %v", op.Port, g.Index, err)
					continue
				}
				if one.GID.String() != g.GID || one.Type.String() != g.Type {
					t.Errorf("QueryGID(%d, %d) = %s %s; ibv_devinfo: %s %s", op.Port, g.Index, one.GID, one.Type, g.GID, g.Type)
				}
			}
			compared += len(op.GIDs)
		}
	}
	t.Logf("compared %d values on %d device(s) with ibv_devinfo -v", compared, len(devs))
}
