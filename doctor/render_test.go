package doctor

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/sysfsmon"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

// brokenRxe0 is the lab after much went wrong at once: veth0 down, a
// user without privileges whose 64 MiB registration fails, and a dead
// process's objects kept by a child.
func brokenRxe0(t *testing.T) *Facts {
	f := leakFacts(inspect.OwnerZombie, "doctor.test")(t)
	p := &f.Devices[0].Ports[0]
	p.State, p.StateName, p.PhysState, p.PhysStateName, p.NetdevState = 1, "DOWN", 3, "Disabled", "down"
	f.Host.Cred = user1000()
	f.Probes = []Probe{failedProbe("rxe0", "ibv_reg_mr", syscall.ENOMEM)}
	f.HoldersUnreadable = 3
	return f
}

func pingpongRxe0(t *testing.T) *Facts {
	f := liveRxe0(t)
	addProcess(f.Netlink, "rxe0", 232, "ibv_rc_pingpong", 1)
	f.Holders = []sysfsmon.FDHolder{{PID: 232, Comm: "ibv_rc_pingpong", FD: 3, Path: "/dev/infiniband/uverbs0"}}
	return f
}

func TestRenderGolden(t *testing.T) {
	for _, c := range []struct {
		name  string
		facts func(*testing.T) *Facts
		json  bool
		ok    bool
	}{
		{"rxe0-live", pingpongRxe0, true, true},
		{"rxe0-broken", brokenRxe0, true, false},
		{"rxe0-tree", rxe0, false, true},
		{"mlx5-tree", mlx5, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := Run(c.facts(t), Checks)
			if r.OK() != c.ok {
				t.Errorf("OK() = %v, want %v; failed: %v", r.OK(), c.ok, r.Summary.Failed)
			}
			var text bytes.Buffer
			if err := RenderText(&text, r); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+".golden", text.Bytes())
			if !c.json {
				return
			}
			var js bytes.Buffer
			if err := RenderJSON(&js, r, true); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name+"-json.golden", js.Bytes())
		})
	}
}

// The JSON keys are the documented ones, and lists are never null.
func TestRenderJSONKeys(t *testing.T) {
	r := Run(rxe0(t), Checks)
	var out bytes.Buffer
	if err := RenderJSON(&out, r, false); err != nil {
		t.Fatal(err)
	}
	if bytes.Count(out.Bytes(), []byte("\n")) != 1 {
		t.Errorf("not one line: %q", out.String())
	}
	var v map[string]any
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]any) []string {
		var k []string
		for s := range m {
			k = append(k, s)
		}
		slices.Sort(k)
		return k
	}
	if got := keys(v); !slices.Equal(got, []string{"checks", "host", "summary"}) {
		t.Errorf("top keys %v", got)
	}
	if got := keys(v["host"].(map[string]any)); !slices.Equal(got, []string{"cpus", "kernel_release", "live", "rdma_core", "rdma_core_source", "uid"}) {
		t.Errorf("host keys %v", got)
	}
	if got := keys(v["summary"].(map[string]any)); !slices.Equal(got, []string{"fail", "failed", "na", "pass", "warn", "warned"}) {
		t.Errorf("summary keys %v", got)
	}
	if w := v["summary"].(map[string]any)["warned"]; w == nil {
		t.Error("summary.warned is null")
	}
	for _, c := range v["checks"].([]any) {
		m := c.(map[string]any)
		if got := keys(m); !slices.Equal(got, []string{"evidence", "fix", "id", "summary", "title", "verdict"}) {
			t.Errorf("check keys %v", got)
		}
		if m["evidence"] == nil || m["fix"] == nil {
			t.Errorf("check %s has a null list", m["id"])
		}
		if !slices.Contains([]string{"pass", "warn", "fail", "n/a"}, m["verdict"].(string)) {
			t.Errorf("check %s: verdict %v", m["id"], m["verdict"])
		}
		for _, e := range m["evidence"].([]any) {
			ek := keys(e.(map[string]any))
			if !slices.Equal(ek, []string{"source", "value", "what"}) && !slices.Equal(ek, []string{"source", "value", "verdict", "what"}) {
				t.Errorf("evidence keys %v", ek)
			}
		}
	}
}
