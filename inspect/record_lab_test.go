//go:build lab

package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// scenario puts the lab into a state worth recording and returns the
// pids whose objects should be there.
type scenario struct {
	name  string
	setup func(t *testing.T, c *Conn)
}

func labScenarios() []scenario {
	return []scenario{
		{"idle", func(t *testing.T, c *Conn) {}},
		{"rc-init", func(t *testing.T, c *Conn) {
			gid := labkit.Env(t, "LAB_GID_INDEX")
			srv := labkit.Start(t, "ibv_rc_pingpong", "-e", "-g", gid, "-n", "100000000")
			labkit.WaitFor(t, labkit.Step, "the server QP in INIT", func() bool {
				return allInState(qpsOf(t, c, srv.PID()), 1, rdma.QPStateInit)
			})
		}},
		{"rc-rts", func(t *testing.T, c *Conn) {
			gid, ip := labkit.Env(t, "LAB_GID_INDEX"), labkit.Env(t, "LAB_IP")
			srv := labkit.Start(t, "ibv_rc_pingpong", "-e", "-g", gid, "-n", "100000000")
			labkit.WaitFor(t, labkit.Step, "the server QP in INIT", func() bool {
				return allInState(qpsOf(t, c, srv.PID()), 1, rdma.QPStateInit)
			})
			cli := labkit.Start(t, "ibv_rc_pingpong", "-e", "-g", gid, "-n", "100000000", ip)
			labkit.WaitFor(t, labkit.Step, "both QPs in RTS", func() bool {
				return allInState(qpsOf(t, c, srv.PID()), 1, rdma.QPStateRTS) &&
					allInState(qpsOf(t, c, cli.PID()), 1, rdma.QPStateRTS)
			})
		}},
		{"srq", func(t *testing.T, c *Conn) {
			// The server creates an SRQ and 16 QPs on it, then waits.
			srv := labkit.Start(t, "ibv_srq_pingpong", "-g", labkit.Env(t, "LAB_GID_INDEX"))
			labkit.WaitFor(t, labkit.Step, "the SRQ server's 16 QPs in INIT", func() bool {
				return allInState(qpsOf(t, c, srv.PID()), 16, rdma.QPStateInit)
			})
		}},
		{"rping", func(t *testing.T, c *Conn) {
			ip := labkit.Env(t, "LAB_IP")
			srv := labkit.Start(t, "rping", "-s", "-a", ip, "-C", "1000000")
			labkit.WaitFor(t, labkit.Step, "rping's listening cm_id", func() bool {
				ids, err := c.CMIDs(Query{})
				return err == nil && len(ids) == 1
			})
			cli := labkit.Start(t, "rping", "-c", "-a", ip, "-C", "1000000")
			labkit.WaitFor(t, labkit.Step, "rping's connected QPs", func() bool {
				return allInState(qpsOf(t, c, srv.PID()), 1, rdma.QPStateRTS) &&
					allInState(qpsOf(t, c, cli.PID()), 1, rdma.QPStateRTS)
			})
		}},
	}
}

// TestRecordRoundTrip takes a full snapshot with the recorder on in each
// lab scenario, replays the recording through nltest and checks that the
// replay decodes to the same snapshot: the recordings are faithful. With
// VERBSCOPE_RECORD=1 it also saves them to testdata/SCENARIO.json, next to
// what `rdma -j resource show` printed right after (SCENARIO.rdma.json),
// for the unit tests. labtest passes no environment, so record with:
//
//	go test -c -tags lab -o .cache/inspect.test ./inspect
//	verbscope lab --share . -- 'cd /mnt/host/inspect && VERBSCOPE_RECORD=1 \
//	    /mnt/host/.cache/inspect.test -test.run TestRecordRoundTrip -test.v'
//
// and update the pids and numbers the unit tests expect.
func TestRecordRoundTrip(t *testing.T) {
	labkit.Clean(t)
	save := os.Getenv("VERBSCOPE_RECORD") == "1"
	c := dial(t)
	for _, sc := range labScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			waitIdle(t, c)
			sc.setup(t, c)
			rec := &Recording{Kernel: kernelRelease(t), Note: "lab scenario " + sc.name}
			c.Record(rec)
			live, err := c.Snapshot(context.Background(), SnapshotOptions{})
			if err != nil {
				c.Record(nil)
				t.Fatal(err)
			}
			var liveDD *Snapshot
			if sc.name == "idle" {
				liveDD, err = c.Snapshot(context.Background(), SnapshotOptions{Query: Query{DriverDetails: true}})
				if err != nil {
					t.Fatal(err)
				}
			}
			c.Record(nil)
			oracle := map[string]json.RawMessage{}
			for _, k := range append([]string{""}, resObjectKinds...) {
				oracle[k] = labkit.RdmaJSON(t, k)
			}
			eachObject(live, func(o *Object) { rec.AddComm(o) })

			rc := replayConn(t, rec)
			replayed, err := rc.Snapshot(context.Background(), SnapshotOptions{})
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			// The generations are each reading's own (generation.go): the
			// objects are what must be equal.
			opts := cmp.Options{cmpopts.IgnoreFields(Snapshot{}, "Time", "Took"), cmpopts.IgnoreUnexported(Snapshot{}), cmp.Comparer(func(a, b error) bool { return a.Error() == b.Error() }), cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b })}
			if diff := cmp.Diff(live, replayed, opts); diff != "" {
				t.Errorf("replayed snapshot differs from the live one (-live +replay):\n%s", diff)
			}
			if liveDD != nil {
				replayedDD, err := rc.Snapshot(context.Background(), SnapshotOptions{Query: Query{DriverDetails: true}})
				if err != nil {
					t.Fatalf("replay with driver details: %v", err)
				}
				if diff := cmp.Diff(liveDD, replayedDD, opts); diff != "" {
					t.Errorf("replayed driver-details snapshot differs (-live +replay):\n%s", diff)
				}
			}
			if len(live.QPs) == 0 || len(live.Devices) == 0 || len(live.Summary) == 0 {
				t.Errorf("snapshot without devices, QPs or summary: %+v", live)
			}
			if save {
				var b bytes.Buffer
				if err := rec.Encode(&b); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join("testdata", sc.name+".json"), b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				o, _ := json.MarshalIndent(oracle, "", " ")
				if err := os.WriteFile(filepath.Join("testdata", sc.name+".rdma.json"), append(o, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("saved testdata/%s.json", sc.name)
			}
		})
	}
}

// resObjectKinds are the object kinds of rdma resource show.
var resObjectKinds = []string{"qp", "cq", "mr", "pd", "ctx", "srq", "cm_id"}

func kernelRelease(t testing.TB) string {
	out, err := exec.Command("uname", "-r").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// eachObject calls fn for the Object part of every object in s.
func eachObject(s *Snapshot, fn func(o *Object)) {
	for i := range s.QPs {
		fn(&s.QPs[i].Object)
	}
	for i := range s.CQs {
		fn(&s.CQs[i].Object)
	}
	for i := range s.MRs {
		fn(&s.MRs[i].Object)
	}
	for i := range s.PDs {
		fn(&s.PDs[i].Object)
	}
	for i := range s.Contexts {
		fn(&s.Contexts[i].Object)
	}
	for i := range s.SRQs {
		fn(&s.SRQs[i].Object)
	}
	for i := range s.CMIDs {
		fn(&s.CMIDs[i].Object)
	}
	for i := range s.QPCounters {
		fn(&s.QPCounters[i].Object)
	}
}
