package trace

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
