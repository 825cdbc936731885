package rdma

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// validGrid is table 8a of shared/reference/qp-state-machine.md, an
// independent transcription of which transitions are valid (rows: from,
// columns: to, RESET INIT RTR RTS SQD SQE ERR).
const validGrid = `
RESET  1 1 0 0 0 0 0
INIT   1 1 1 0 0 0 1
RTR    1 0 0 1 0 0 1
RTS    1 0 0 1 1 0 1
SQD    1 0 0 1 1 0 1
SQE    1 0 0 1 0 0 1
ERR    1 0 0 0 0 0 1`

func TestTableValidGrid(t *testing.T) {
	for _, line := range strings.Split(strings.TrimSpace(validGrid), "\n") {
		f := strings.Fields(line)
		from, ok := ParseQPState(f[0])
		if !ok {
			t.Fatalf("bad row %q", line)
		}
		for i, cell := range f[1:] {
			to := QPStates[i]
			for _, typ := range tableTypes {
				if got := LookupTransition(from, to, typ).Valid; got != (cell == "1") {
					t.Errorf("%s %s→%s: valid=%v, the reference says %s", typ, from, to, got, cell)
				}
			}
		}
	}
}

// TestRequiredMatchesManPage checks the required sets against
// ibv_modify_qp(3)'s list for the bring-up walk (a second source besides
// the kernel table).
func TestRequiredMatchesManPage(t *testing.T) {
	man := map[QPType][3]string{
		QPTypeRC:        {"STATE|PKEY_INDEX|PORT|ACCESS_FLAGS", "STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER", "STATE|SQ_PSN|MAX_QP_RD_ATOMIC|RETRY_CNT|RNR_RETRY|TIMEOUT"},
		QPTypeUC:        {"STATE|PKEY_INDEX|PORT|ACCESS_FLAGS", "STATE|AV|PATH_MTU|DEST_QPN|RQ_PSN", "STATE|SQ_PSN"},
		QPTypeUD:        {"STATE|PKEY_INDEX|PORT|QKEY", "STATE", "STATE|SQ_PSN"},
		QPTypeRawPacket: {"STATE|PORT", "STATE", "STATE"},
	}
	walk := [3][2]QPState{{QPStateReset, QPStateInit}, {QPStateInit, QPStateRTR}, {QPStateRTR, QPStateRTS}}
	for typ, sets := range man {
		for i, step := range walk {
			var want QPAttrMask
			for _, n := range strings.Split(sets[i], "|") {
				b, ok := ParseQPAttrMaskBit(n)
				if !ok {
					t.Fatalf("bad name %q", n)
				}
				want |= b
			}
			if got := AttrState | LookupTransition(step[0], step[1], typ).Required; got != want {
				t.Errorf("%s %s→%s requires %s, ibv_modify_qp(3) says %s", typ, step[0], step[1], got, want)
			}
		}
	}
}

// TestModifyIsOKWholeTable walks every type × from × to: the exact mask
// passes exactly when the cell is valid, dropping any required bit or
// adding any bit outside required|optional|STATE fails, and CUR_STATE
// passes only from RTR, RTS, SQD and SQE.
func TestModifyIsOKWholeTable(t *testing.T) {
	var all QPAttrMask
	for _, b := range qpMaskNames {
		all |= b.bit
	}
	n := 0
	for _, typ := range tableTypes {
		for _, from := range QPStates {
			for _, to := range QPStates {
				r := LookupTransition(from, to, typ)
				exact := AttrState | r.Required
				if got := ModifyIsOK(from, to, typ, exact); got != r.Valid {
					t.Errorf("%s %s→%s exact mask %s: ok=%v, valid=%v", typ, from, to, exact, got, r.Valid)
				}
				for _, h := range ExplainMask(r.Required) {
					if ModifyIsOK(from, to, typ, exact&^h.Bit) {
						t.Errorf("%s %s→%s passes without required %s", typ, from, to, h.Name)
					}
				}
				for _, h := range ExplainMask(all &^ r.Allowed()) {
					if ModifyIsOK(from, to, typ, exact|h.Bit) {
						t.Errorf("%s %s→%s passes with forbidden %s", typ, from, to, h.Name)
					}
				}
				for _, h := range ExplainMask(r.Optional) {
					ok := ModifyIsOK(from, to, typ, exact|h.Bit)
					want := r.Valid && (h.Bit != AttrCurState || slices.Contains(curStateAllowedFrom, from))
					if ok != want {
						t.Errorf("%s %s→%s with optional %s: ok=%v want %v", typ, from, to, h.Name, ok, want)
					}
				}
				n++
			}
		}
	}
	if n != len(tableTypes)*7*7 {
		t.Errorf("walked %d cells", n)
	}
	if ModifyIsOK(QPStateRTR, QPStateRTR, QPTypeRC, 0) {
		t.Error("RTR→RTR (a modify without STATE in RTR) must be invalid")
	}
	if ModifyIsOK(QPStateRTS, QPStateRTS, QPTypeDriver, AttrState) {
		t.Error("DRIVER QPs have no table column")
	}
	// A self-check of the data: optional and required never overlap,
	// and STATE is in neither.
	for _, c := range qpStateTable {
		for _, typ := range tableTypes {
			if c.req[typ]&c.opt[typ] != 0 || (c.req[typ]|c.opt[typ])&AttrState != 0 {
				t.Errorf("%s %s→%s: req %s opt %s", typ, c.from, c.to, c.req[typ], c.opt[typ])
			}
		}
	}
}

func TestPathsAndNext(t *testing.T) {
	for _, tc := range []struct {
		from, to QPState
		typ      QPType
		want     []QPState
	}{
		{QPStateReset, QPStateRTS, QPTypeRC, []QPState{QPStateInit, QPStateRTR, QPStateRTS}},
		{QPStateReset, QPStateSQD, QPTypeUD, []QPState{QPStateInit, QPStateRTR, QPStateRTS, QPStateSQD}},
		{QPStateErr, QPStateRTS, QPTypeUC, []QPState{QPStateReset, QPStateInit, QPStateRTR, QPStateRTS}},
		{QPStateRTS, QPStateInit, QPTypeRC, []QPState{QPStateReset, QPStateInit}},
		{QPStateInit, QPStateSQE, QPTypeUD, nil},
		{QPStateInit, QPStateInit, QPTypeRC, nil},
	} {
		if got := PathTo(tc.from, tc.to, tc.typ); !cmp.Equal(got, tc.want) {
			t.Errorf("PathTo(%s, %s, %s) = %v, want %v", tc.from, tc.to, tc.typ, got, tc.want)
		}
	}
	walk := []QPState{}
	for s, ok := QPStateReset, true; ok && len(walk) < 10; s, ok = Next(s, QPTypeRC) {
		walk = append(walk, s)
	}
	if want := []QPState{QPStateReset, QPStateInit, QPStateRTR, QPStateRTS}; !cmp.Equal(walk, want) {
		t.Errorf("Next walk = %v, want %v", walk, want)
	}
	for _, s := range []QPState{QPStateSQD, QPStateSQE} {
		if n, ok := Next(s, QPTypeUD); !ok || n != QPStateRTS {
			t.Errorf("Next(%s) = %s %v", s, n, ok)
		}
	}
	if n, ok := Next(QPStateErr, QPTypeRC); !ok || n != QPStateReset {
		t.Errorf("Next(ERR) = %s %v", n, ok)
	}
	if got := LegalNext(QPStateRTS, QPTypeRC); !cmp.Equal(got, []QPState{QPStateReset, QPStateRTS, QPStateSQD, QPStateErr}) {
		t.Errorf("LegalNext(RTS) = %v", got)
	}
}

func TestExplainMaskAndHelp(t *testing.T) {
	for _, b := range qpMaskNames {
		h, ok := HelpFor(b.bit)
		if !ok || h.Name != b.name || h.What == "" || h.Fields == "" {
			t.Errorf("no help for %s: %+v", b.name, h)
		}
	}
	got := ExplainMask(AttrDestQPN | AttrAV | 1<<22)
	if len(got) != 3 || got[0].Name != "AV" || got[1].Name != "DEST_QPN" || !strings.Contains(got[2].What, "never exposed") {
		t.Errorf("ExplainMask = %+v", got)
	}
	for _, s := range append(slices.Clone(QPStates), QPStateUnknown, 42) {
		if StateHelp(s) == "" {
			t.Errorf("no help for state %d", s)
		}
	}
}

// What each state allows, as the shell's post checks and the dashboard
// read it: receives from INIT on, sends that run only in RTS (and SQD,
// queued), and ERR flushes both queues.
func TestStateAllows(t *testing.T) {
	type row struct{ PostRecv, PostSend, SendsRun, Receives, Flushes bool }
	got := map[string]row{}
	for _, s := range append(QPStates, QPStateUnknown) {
		a := s.Allows()
		got[s.String()] = row{a.PostRecv, a.PostSend, a.SendsRun, a.Receives, a.FlushesSends || a.FlushesRecvs}
	}
	want := map[string]row{
		"RESET":   {},
		"INIT":    {PostRecv: true},
		"RTR":     {PostRecv: true, Receives: true},
		"RTS":     {PostRecv: true, PostSend: true, SendsRun: true, Receives: true},
		"SQD":     {PostRecv: true, PostSend: true, SendsRun: true, Receives: true},
		"SQE":     {PostRecv: true, PostSend: true, Receives: true, Flushes: true},
		"ERR":     {PostRecv: true, PostSend: true, Flushes: true},
		"UNKNOWN": {},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Allows (-want +got):\n%s", diff)
	}
}
