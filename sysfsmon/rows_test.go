package sysfsmon

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/view"
)

// The rows' JSON is the JSON of the structs they come from, key for key
// and in order (the structs' tags are the documented keys), and every
// row has an identity no other row of its kind shares.
func TestRowsJSONAndIdentity(t *testing.T) {
	for _, tree := range []string{"rxe0", "mlx5"} {
		f := fixture(t, tree)
		devs, err := f.Devices()
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		checkID := func(r view.Row) {
			t.Helper()
			id := r.ID()
			if id == "" || ids[id] {
				t.Errorf("%s: row identity %q empty or repeated: %s", tree, id, r.Text())
			}
			ids[id] = true
		}
		for i := range devs {
			d := &devs[i]
			// A LID whose file is missing is null in the rows, 0 (with
			// lid_known false) in the struct.
			nullLIDs := func(v any) any {
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range []string{"lid", "sm_lid"} {
					b = []byte(strings.ReplaceAll(string(b), `"`+k+`":0,"lid_known":true,"sm_lid_known":false`, `"`+k+`":null,"lid_known":true,"sm_lid_known":false`))
				}
				b = []byte(strings.ReplaceAll(string(b), `"lid":0,"sm_lid":0,"lid_known":false`, `"lid":null,"sm_lid":0,"lid_known":false`))
				return json.RawMessage(b)
			}
			sameJSON(t, d.Row(), nullLIDs(d))
			checkID(d.Row())
			for j := range d.Ports {
				p := &d.Ports[j]
				sameJSON(t, p.Row(), nullLIDs(p))
				checkID(p.Row())
				for k, r := range p.GIDRows() {
					g := p.GIDs[k]
					sameJSON(t, r, struct {
						Dev  string `json:"dev"`
						Port int    `json:"port"`
						GID
						Recommended bool `json:"recommended"`
					}{p.Device, p.Port, g, g.Index == p.RecommendedGIDIndex})
					checkID(r)
				}
			}
		}
		snap, err := f.Counters()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range snap.Counters {
			r := CounterRate{Counter: c, Delta: 3, Rate: 1.5}
			// The row adds the unit, and a byte counter its bytes; then
			// what the registry knows.
			type united struct {
				Counter
				Unit  string  `json:"unit"`
				Bytes *uint64 `json:"bytes,omitempty"`
			}
			type known struct {
				Meaning  *string `json:"meaning"`
				Known    bool    `json:"known"`
				Class    string  `json:"class,omitempty"`
				Side     string  `json:"side,omitempty"`
				Terminal *bool   `json:"terminal,omitempty"`
				Bits     int     `json:"bits,omitempty"`
				Signal   string  `json:"signal,omitempty"`
			}
			var reg known
			if in, ok := c.info(); ok {
				reg = known{&in.Meaning, true, string(in.Class), string(in.Side), &in.Terminal, in.Bits, string(in.Signal)}
			}
			if c.Unavailable {
				if got := string(r.Row(false).AppendJSON(nil)); !strings.Contains(got, `"value":null`) || !strings.Contains(got, `"unavailable":true`) {
					t.Errorf("unavailable counter's row: %s", got)
				}
				continue
			}
			u, scale := c.Unit()
			plain := united{Counter: c, Unit: u.String()}
			var byteRate *float64
			if u == UnitBytes {
				b, br := c.Value*scale, r.Rate*float64(scale)
				plain.Bytes, byteRate = &b, &br
			}
			sameJSON(t, r.Row(false), struct {
				united
				known
			}{plain, reg})
			sameJSON(t, r.Row(true), struct {
				united
				Delta    uint64   `json:"delta"`
				Rate     float64  `json:"rate"`
				Reset    bool     `json:"reset"`
				ByteRate *float64 `json:"byte_rate,omitempty"`
				known
			}{plain, r.Delta, r.Rate, r.Reset, byteRate, reg})
			checkID(r.Row(false))
		}
		irqs, err := f.IRQs()
		if err != nil {
			t.Fatal(err)
		}
		n := 4
		ids = map[string]bool{} // another kind of rows
		for i := range irqs.Devices {
			d := &irqs.Devices[i]
			sameJSON(t, d.Row(irqs.CPUs, &n, nil), struct {
				DeviceIRQs
				CPUs []int `json:"cpus"`
				N    *int  `json:"num_comp_vectors"`
			}{*d, irqs.CPUs, &n})
			checkID(d.Row(irqs.CPUs, &n, nil))
			for _, r := range d.IRQRows(irqs.CPUs, nil, false) {
				if r.ID() == "" {
					t.Errorf("IRQ row without identity: %s", r.Text())
				}
			}
		}
		if len(ids) == 0 {
			t.Errorf("%s: no IRQ device rows", tree)
		}
	}
}

func sameJSON(t *testing.T, r view.Row, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(r.AppendJSON(nil))); diff != "" {
		t.Errorf("row JSON differs from the struct's (-struct +row):\n%s", diff)
	}
}

// The text cells are what the CLI's tables print, in column order.
func TestPortRowText(t *testing.T) {
	devs, err := fixture(t, "rxe0").Devices()
	if err != nil {
		t.Fatal(err)
	}
	var head, cells []string
	for _, f := range devs[0].Ports[0].Row() {
		if !f.NoText {
			head, cells = append(head, f.TextKey), append(cells, f.Text)
		}
	}
	wantHead := []string{"DEV", "PORT", "STATE", "PHYS", "RATE", "LINK", "LID", "SM_LID", "SM_SL", "LMC", "CAP_MASK", "NETDEV", "MTU", "GIDS", "GID_IDX"}
	wantCells := []string{"rxe0", "1", "ACTIVE", "LinkUp", "10 Gb/sec (1X FDR10)", "Ethernet", "0x0", "0x0", "0", "0", "0x00010000", "veth0", "1500", "2/8", "1"}
	if diff := cmp.Diff(wantHead, head); diff != "" {
		t.Errorf("columns: %s", diff)
	}
	if diff := cmp.Diff(wantCells, cells); diff != "" {
		t.Errorf("cells: %s", diff)
	}
}
