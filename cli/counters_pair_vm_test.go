//go:build vm

package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// a connects and posts no receive for a while: b's Send meets RNR NAKs
// and retries (rnr_retry 7: without end) until a posts one. Then a
// destroys its QP, and b's next Send gets no answer: b retries retry_cnt
// times on its ACK timer and fails with RETRY_EXC_ERR. dial sets
// rc_pingpong's retry_cnt=7, which rxe takes as "forever" (docs/rxe.md),
// so once its first Send is through, b lowers it to 2 through SQD, the
// one step that may change it (after a second: rxe refuses to leave SQD
// while its queue drains). Lowered before the RNR phase, rxe's 67 ms ACK
// timer, which runs beside its RNR timer, failed the first Send with
// RETRY_EXC_ERR under TCG, and a then waited a minute for a receive
// that never came.
const countersPairA = `open; pd; cq size=64; mr size=4096 access=local_write; qp type=rc cq=cq1; next qp1
listen qp1 timeout=120s
poll cq1 wait=4s
post recv qp1 mr1[0:64]
poll cq1 until=recv wait=60s
destroy qp1
`

const countersPairB = `open; pd; cq size=64; mr size=4096 access=local_write; qp type=rc cq=cq1; next qp1
dial qp1 10.0.1.1 timeout=120s
write mr1 "RNR-FIRST"; post send qp1 mr1[0:9]
poll cq1 until=send wait=60s
modify qp1 sqd
poll cq1 wait=1s
modify qp1 sqd retry_cnt=2
modify qp1 rts
poll cq1 wait=4s
post send qp1 mr1[0:9]
poll cq1 until=error wait=60s
`

// counterLine is one counter of verbscope counters -j.
type counterLine struct {
	Dev, Name, Meaning, Class, Side string
	Value                           uint64
	Error, Known, Terminal          bool
}

// TestCountersAfterRNRAndRetryExceeded provokes an RNR and a
// retry-exceeded between two lab hosts and reads rxe0's counters on
// each: they moved, with their meanings and classes.
func TestCountersAfterRNRAndRetryExceeded(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "verbscope")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "a.vs"), []byte(countersPairA), 0o644)
	os.WriteFile(filepath.Join(dir, "b.vs"), []byte(countersPairB), 0o644)
	l, out, log := pairLab(t, dir, bin, 5*time.Minute)
	read := "; echo COUNTERS-TABLE; verbscope counters dev rxe0; echo COUNTERS-JSON; verbscope counters -j dev rxe0"
	_, err := l.RunPair(context.Background(), "verbscope shell -f /mnt/host/a.vs"+read, "verbscope shell -f /mnt/host/b.vs"+read)
	t.Logf("lab:\n%s\noutput:\n%s", log.String(), out.String())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]counterLine{"a": {}, "b": {}}
	for _, line := range strings.Split(out.String(), "\n") {
		for host := range got {
			if rest, ok := strings.CutPrefix(line, "["+host+"] ["); ok {
				var cs []counterLine
				if err := json.Unmarshal([]byte("["+rest), &cs); err != nil {
					t.Fatalf("%s: counters -j: %v: %s", host, err, line)
				}
				for _, c := range cs {
					got[host][c.Name] = c
				}
			}
		}
	}
	for _, tc := range []struct {
		host, name, class, side string
		terminal, mark          bool
	}{
		{"b", "rcvd_rnr_err", "retry", "requester", false, false},
		{"a", "send_rnr_err", "retry", "responder", false, false},
		{"b", "completer_retry_err", "retry", "requester", false, false},
		{"b", "retry_exceeded_err", "error", "requester", true, true},
	} {
		c, ok := got[tc.host][tc.name]
		switch {
		case !ok:
			t.Errorf("%s: %s not in counters -j", tc.host, tc.name)
		case c.Value == 0:
			t.Errorf("%s: %s did not move", tc.host, tc.name)
		case !c.Known || c.Meaning == "" || c.Class != tc.class || c.Side != tc.side || c.Terminal != tc.terminal || c.Error != tc.mark:
			t.Errorf("%s: %s = %+v, want class %s side %s terminal %v mark %v", tc.host, tc.name, c, tc.class, tc.side, tc.terminal, tc.mark)
		default:
			t.Logf("%s: %s = %d: %s (%s, %s side, terminal %v)", tc.host, tc.name, c.Value, c.Meaning, c.Class, c.Side, c.Terminal)
		}
	}
	// The RNR phase ended as designed, each side's completion a
	// success: the Send on b, the receive on a, with the bytes; then
	// b's second Send failed.
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`\[b\]   wrid 1 +SEND +success`),
		regexp.MustCompile(`\[a\]   wrid 1 +RECV +success`),
		regexp.MustCompile(`\[b\]   wrid 2 +RETRY_EXC_ERR`),
	} {
		if !want.MatchString(out.String()) {
			t.Errorf("output lacks %s", want)
		}
	}
}
