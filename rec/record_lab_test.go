//go:build lab

package rec

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

// regen makes TestRecordSessionLab keep its recording as the fixture
// TestLabSessionGolden reads (labSessionFixture says how to run it).
var regen = flag.Bool("rec.regen", false, "TestRecordSessionLab: write the recording to "+labSessionFixture)

// TestRecordSessionLab records a real session on rxe0 with `verbscope
// record` (trace on): an ibv_rc_pingpong pair runs to its end, and a
// verbs shell moves its own QP to ERR. The recorder is then killed with
// SIGKILL mid-run. The file must open with every reading seen before
// the kill; the documented query finds the move to ERR with the traced
// modify; the pingpong QPs' lives are there; the Perfetto export passes
// the structural check and holds what checkLabSession asks of the
// session. With -rec.regen it writes the recording as the fixture of
// TestLabSessionGolden.
func TestRecordSessionLab(t *testing.T) {
	labkit.Clean(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "session.vsrec")
	recorder := labkit.Start(t, "verbscope", "record", "-o", path, "--interval", "500ms")
	labkit.WaitFor(t, labkit.Attach, "trace attached in the recorder", func() bool {
		return strings.Contains(recorder.Output(), "programs attached")
	})
	// peek runs fn on the recording as it is now (WAL lets a reader in
	// beside the writer).
	peek := func(fn func(r *Reader) bool) bool {
		r, err := Open(ctx, path)
		if err != nil {
			return false
		}
		defer r.Close()
		return fn(r)
	}
	readings := func(r *Reader) int {
		rs, err := r.Readings(ctx, "res")
		if err != nil {
			return 0
		}
		return len(rs)
	}
	labkit.WaitFor(t, labkit.Step, "a reading in the file", func() bool { return peek(func(r *Reader) bool { return readings(r) > 0 }) })

	// The pair runs until the file holds both its QPs, then is killed
	// (the kernel destroys them): a pair left to finish by itself may end
	// within one of the recorder's readings (1,000 iterations did, on an
	// idle host), before trace's reader, which hands over the modifies
	// once an interval, has woken one. Throttled, it leaves the guest's
	// CPUs to the recorder.
	server, client := labkit.PingpongPair(t, "-e", "-g", labkit.Env(t, "LAB_GID_INDEX"), "-n", "100000000")
	labkit.Throttle(t, 100*time.Millisecond, time.Second, server, client)
	pids := map[uint32]bool{server.PID(): true, client.PID(): true}
	pingpongQPs := func(r *Reader) (n int) {
		lts, _ := r.Lifetimes(ctx)
		for _, l := range lts {
			if l.Kind == "qp" && pids[l.PID] {
				n++
			}
		}
		return n
	}
	labkit.WaitFor(t, labkit.Step, "the pingpong QPs recorded", func() bool { return peek(func(r *Reader) bool { return pingpongQPs(r) == 2 }) })
	// ... and until the port's packet counters moved between two pairs
	// of readings: the export's counter tracks must show the traffic.
	labkit.WaitFor(t, labkit.Step, "the pingpong's packets in the port counters", func() bool {
		return peek(func(r *Reader) bool {
			tr, err := r.trace(ctx)
			if err != nil {
				return false
			}
			moved := 0
			for _, c := range find(tr, "C", "/1 packets/s") {
				if c.Args["tx"].(float64) > 0 {
					moved++
				}
			}
			return moved >= 2
		})
	})
	server.Kill()
	client.Kill()
	sh := labkit.Start(t, "verbscope", "shell", "-c", "open; pd; channel; cq channel=ch1; qp type=rc cq=cq1; next qp1; modify qp1 err; wait cq1 timeout=10m")
	q := docQueries(t)["to-err"]
	var toErr [][]string
	// The shell opens the device, creates and moves its QP: a short
	// program run, not one step.
	labkit.WaitFor(t, labkit.Run, "the move to ERR recorded", func() bool {
		return peek(func(r *Reader) bool {
			toErr, _ = queryRows(ctx, r, q)
			return len(toErr) > 0
		})
	})
	sh.Signal(syscall.SIGTERM)
	sh.Exit(t, labkit.Run)
	var before int
	labkit.WaitFor(t, labkit.Step, "two more readings", func() bool {
		return peek(func(r *Reader) bool {
			n := readings(r)
			if before == 0 {
				before = n
			}
			return n >= before+2
		})
	})
	peek(func(r *Reader) bool { before = readings(r); return true })
	recorder.Signal(syscall.SIGKILL)
	if code := recorder.Exit(t, labkit.Step); code != -1 { // -1: ended by a signal
		t.Fatalf("the recorder exited with status %d before SIGKILL:\n%s", code, recorder.Output())
	}

	r, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("the killed recorder's file: %v", err)
	}
	defer r.Close()
	if n := readings(r); n < before {
		t.Errorf("%d readings after SIGKILL, %d were there before", n, before)
	}
	if err := readAll(ctx, r); err != nil {
		t.Errorf("reading the killed recorder's file: %v", err)
	}

	// The move to ERR: the shell's QP, moved by the shell, with the
	// modify's attributes (columns as in docs/record.md), as the file
	// holds it now: a modify that came after the reading that saw ERR
	// is written over that reading's row.
	if toErr, err = queryRows(ctx, r, q); err != nil {
		t.Fatal(err)
	}
	shPID := strconv.Itoa(int(sh.PID()))
	if len(toErr) != 1 {
		t.Fatalf("to-err rows %q, want the shell's QP", toErr)
	}
	row := toErr[0]
	if row[3] != "verbscope" || row[5] != shPID || row[6] != "verbscope" || !strings.Contains(row[7], `"qp_state"`) {
		t.Errorf("to-err row %q: want the shell (pid %s) moving its own QP, with the traced attributes", row, shPID)
	}

	lts, err := r.Lifetimes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var pp []Lifetime
	for _, l := range lts {
		if l.Kind == "qp" && pids[l.PID] {
			pp = append(pp, l)
		}
	}
	if len(pp) != 2 || !pp[0].Ended || !pp[1].Ended {
		t.Errorf("pingpong QP lifetimes %+v, want two, both ended", pp)
	}

	var b bytes.Buffer
	if err := r.Perfetto(ctx, &b); err != nil {
		t.Fatal(err)
	}
	tr, err := checkTrace(b.Bytes())
	if err != nil {
		t.Fatalf("perfetto export: %v", err)
	}
	if err := checkLabSession(tr); err != nil {
		t.Errorf("perfetto export:\n%v", err)
	}
	for _, e := range find(tr, "b", " QP ") {
		if strings.HasPrefix(e.Args["comm"].(string), "ibv_rc_pingpong") && !pids[e.PID] {
			t.Errorf("pingpong QP slice %+v on pid %d, not the pair's (%v)", e, e.PID, pids)
		}
	}
	if *regen {
		// VACUUM INTO writes a compact copy (no WAL, no free pages) as
		// one consistent snapshot; it will not write over a file. Pages
		// of 1 KiB (the recorder's are 4) keep the mostly empty tables
		// to tens of KiB in git.
		os.Remove(labSessionFixture)
		os.MkdirAll(filepath.Dir(labSessionFixture), 0o755)
		// A Reader reads only: the copy is made on a handle that may write.
		db, err := openRW(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range []string{"PRAGMA page_size = 1024", "VACUUM INTO '" + labSessionFixture + "'"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatalf("write the fixture %s: %s: %v", labSessionFixture, q, err)
			}
		}
		t.Logf("wrote %s: now go test ./rec -run TestLabSessionGolden -update", labSessionFixture)
	}
	t.Logf("recorded %d readings of the objects; the trace has %d events", before, len(tr.TraceEvents))
}
