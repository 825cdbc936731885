package trace

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// replay decodes a file that `verbscope trace --record` wrote, through
// the same book the tracer keeps, with CLOCK_MONOTONIC's zero at the Unix
// epoch so that times are stable.
func replay(t *testing.T, path string, env EnvFunc) []Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := newBook(env)
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		raw, err := hex.DecodeString(strings.TrimSpace(sc.Text()))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		e, err := decode(raw, time.Unix(0, 0).UTC())
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		b.note(&e)
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var update = flag.Bool("update", false, "rewrite the golden files from the recorded events")

// rxeEnv is what the device says from the lab's rxe0 (ibv_devinfo -v).
func rxeEnv(string, uint8) *rdma.CheckEnv {
	return &rdma.CheckEnv{
		Driver: "rxe", PortCount: 1,
		Port: &rdma.PortAttr{State: rdma.PortStateActive, MaxMTU: rdma.MTU4096, ActiveMTU: rdma.MTU1024,
			GIDTblLen: 1024, PKeyTblLen: 64, LinkLayer: rdma.LinkLayerEthernet},
	}
}

// TestGolden replays events recorded in the lab (an ibv_rc_pingpong pair
// with -g, one without, and a verbs shell session with a forced RTR
// from RESET) and compares the text and -j views with the golden files.
func TestGolden(t *testing.T) {
	events := replay(t, "testdata/pingpong.hex", rxeEnv)
	var text, js bytes.Buffer
	enc := json.NewEncoder(&js)
	for _, e := range events {
		text.WriteString(e.Text() + "\n")
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range []struct {
		file string
		got  []byte
	}{{"testdata/pingpong.txt", text.Bytes()}, {"testdata/pingpong.jsonl", js.Bytes()}} {
		if *update {
			if err := os.WriteFile(g.file, g.got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(g.file)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(want), string(g.got)); d != "" {
			t.Errorf("%s (-want +got):\n%s", g.file, d)
		}
	}
}

// TestModifyForTracker: the recorded modifies become the Tracker's
// entries with their attributes, the AV's members as ah_attr.NAME, and
// the failed RTR with its errno and verdict.
func TestModifyForTracker(t *testing.T) {
	var got []inspect.Modify
	for _, e := range replay(t, "testdata/pingpong.hex", rxeEnv) {
		if m, ok := e.tracked(); ok {
			got = append(got, m)
		}
	}
	// rc_pingpong with -g: 2 × 3; without: 2 × INIT and one failed RTR;
	// the shell: 2 × 3 and the forced RTR.
	if len(got) != 16 {
		t.Errorf("%d modifies for the Tracker, want 16", len(got))
	}
	find := func(qpn uint32, to inspect.QPState) inspect.Modify {
		for _, m := range got {
			if m.QPN == qpn && m.To == to {
				return m
			}
		}
		t.Fatalf("no modify of qpn %d to %v", qpn, to)
		return inspect.Modify{}
	}
	rts := find(17, rdma.QPStateRTS)
	attr := func(name, value string) inspect.ModifyAttr { return inspect.ModifyAttr{Name: name, Value: value} }
	want := []inspect.ModifyAttr{attr("qp_state", "RTS"), attr("timeout", "14"), attr("retry_cnt", "7"), attr("rnr_retry", "7"), attr("max_rd_atomic", "1"), attr("sq_psn", rts.Attrs[5].Value)}
	if d := cmp.Diff(want, rts.Attrs); d != "" {
		t.Errorf("qpn 17 RTS attrs (-want +got):\n%s", d)
	}
	if want := `{"qp_state":"RTS","timeout":14,"retry_cnt":7,"rnr_retry":7,"max_rd_atomic":1,"sq_psn":` + strconv.FormatUint(mustHex(t, rts.Attrs[5].Value), 10) + `}`; string(rts.AttrsJSON) != want {
		t.Errorf("qpn 17 RTS AttrsJSON:\n%s\nwant (as trace -j):\n%s", rts.AttrsJSON, want)
	}
	rtr := find(17, rdma.QPStateRTR)
	if !slices.Contains(rtr.Attrs, inspect.ModifyAttr{Name: "ah_attr.hop_limit", Value: "1"}) || rtr.From != rdma.QPStateInit || rtr.Ret != 0 {
		t.Errorf("qpn 17 RTR: %+v", rtr)
	}
	// The Tracker's counts need the state before, and the QP's group:
	// the port its INIT set, kept for the modifies after.
	for _, m := range []inspect.Modify{find(17, rdma.QPStateInit), rtr, rts} {
		if !m.FromKnown || m.Type != rdma.QPTypeRC || m.Port != 1 {
			t.Errorf("qpn 17 to %v: from known %v, type %v, port %d; want known, RC, 1", m.To, m.FromKnown, m.Type, m.Port)
		}
	}
	failed := find(19, rdma.QPStateRTR)
	if failed.Ret != -22 || failed.Errno != "EINVAL" || !strings.Contains(failed.Check, "no GRH") {
		t.Errorf("qpn 19's failed RTR: ret %d errno %q check %q", failed.Ret, failed.Errno, failed.Check)
	}
}

func mustHex(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}
