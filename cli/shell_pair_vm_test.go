//go:build vm

// Host-side tests that boot two lab VMs (tag vm; `make test` runs them).

package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Two shells on two lab hosts, joined by a wire: a listens, b dials (the
// rc_pingpong exchange), b sends a message, a announces its buffer, and b
// RDMA-writes into it with immediate data.
const pairA = `open; pd; cq size=64; mr size=4096 access=local_write,remote_write; qp type=rc cq=cq1; next qp1
post recv qp1 mr1[0:64]; post recv qp1 mr1[64:128]; post recv qp1 mr1[128:192]
listen qp1 timeout=120s
poll cq1 until=recv wait=60s
announce qp1 mr1
poll cq1 until=recv_rdma_with_imm wait=60s
dump mr1[1000:1012]
`

const pairB = `open; pd; cq size=64; mr size=4096 access=local_write; qp type=rc cq=cq1; next qp1
post recv qp1 mr1[2048:2112]
dial qp1 10.0.1.1 timeout=120s
write mr1 "PING-FROM-B"; post send qp1 mr1[0:11]
poll cq1 until=recv wait=60s
write mr1[100] "WRITE-FROM-B"; post write qp1 mr1[100:112] peer.mr1[1000] imm=7
poll cq1 until=rdma_write wait=60s
`

func TestTwoShellsOnTwoHosts(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "verbscope")
	build := exec.Command("go", "build", "-o", bin, "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, "a.vs"), []byte(pairA), 0o644)
	os.WriteFile(filepath.Join(dir, "b.vs"), []byte(pairB), 0o644)
	l, out, log := pairLab(t, dir, bin, 5*time.Minute)
	code, err := l.RunPair(context.Background(), "verbscope shell -f /mnt/host/a.vs", "verbscope shell -f /mnt/host/b.vs")
	t.Logf("lab:\n%s\noutput:\n%s", log.String(), out.String())
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("a shell failed with status %d", code)
	}
	for _, want := range []string{
		"[a]   remote address: LID 0x0000, QPN",
		"[b]   remote address: LID 0x0000, QPN",
		`[a]   wrid 1    RECV               success, 11 bytes into mr1: "PING-FROM-B"`,
		"[b]       the peer announced mr1:",
		"[a]   wrid 2    RECV_RDMA_WITH_IMM success, 12 bytes written by the peer's RDMA write, imm 0x7",
		"[a] 000003e8  57 52 49 54 45 2d 46 52  4f 4d 2d 42",
		"[b]   wrid 3    RDMA_WRITE         success (qp1)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}
