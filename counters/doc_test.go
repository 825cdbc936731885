package counters

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite ../docs/counters.md from the registry")

// markdown is docs/counters.md: the registry as tables, one per driver.
func markdown() string {
	var b strings.Builder
	b.WriteString(`# The counter registry

<!-- Generated from counters/ by TestDocCurrent: go test ./counters -run TestDocCurrent -update -->

What verbscope knows of the RDMA counters the kernel's drivers show under
/sys/class/infiniband/DEV/ports/N/counters/ (the IBTA PortCounters),
ports/N/hw_counters/ and DEV/hw_counters/ (the driver's own), which RDMA
netlink's statistics (rdma statistic show) report too. The counters view,
` + "`verbscope counters`" + ` and its -j, the shell's ` + "`explain COUNTER`" + `, the
exporter's HELP texts and the stuck-QP judgement read it. A counter not
listed here is shown as unknown: its meaning is never guessed from its name.

- **class**: traffic (work that went through), error (something failed),
  retry (the transport repeated something and is recovering), congestion
  (ECN/CNP, rate reduction), drop (packets discarded before any QP saw
  them), other. The ! mark goes on error, drop and terminal counters.
- **side**: requester (the QP sending requests), responder (the QP
  answering them), port, device.
- **terminal**: a rise means a work request failed for good and its QP
  went to the Error state; otherwise the counter counts something
  recoverable.
- **bits**: the width where the kernel says; 32-bit counters (mlx5's
  queue counters) wrap, and rates are corrected across a wrap; the
  PortCounters' error counters stop at their top (marked "sat").
- **signal**: what the counter tells a diagnosis of a stuck QP: rnr (RNR
  NAKs, retried), rnr_exceeded, timeout_retry (ACK timeouts, retried),
  retry_exceeded, sequence (lost packets, resent), remote_access,
  remote_invalid.

Drivers not listed: ionic's names come from the device's firmware at run
time (ionic_hw_stats.c), so there is nothing to list; siw has no
hw_counters; hfi1's chip counters (chip.c) are not in the registry yet.
`)
	cur := "\x00"
	for _, e := range All() {
		if e.Driver != cur {
			cur = e.Driver
			title := cur
			if cur == "" {
				title = "IBTA PortCounters (every InfiniBand driver; counters/)"
			}
			fmt.Fprintf(&b, "\n## %s\n\n| counter | class | side | terminal | bits | signal | meaning |\n|---|---|---|---|---|---|---|\n", title)
		}
		term, bits := "", ""
		if e.Terminal {
			term = "yes"
		}
		if e.Bits > 0 {
			bits = fmt.Sprint(e.Bits)
			if e.Saturates {
				bits += " sat"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", e.Name, e.Class, e.Side, term, bits, e.Signal, strings.ReplaceAll(e.Meaning, "|", "/"))
	}
	return b.String()
}

// TestDocCurrent checks that docs/counters.md is the registry as it is.
func TestDocCurrent(t *testing.T) {
	const path = "../docs/counters.md"
	want := markdown()
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./counters -run TestDocCurrent -update writes it)", err)
	}
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("docs/counters.md is not the registry as it is; go test ./counters -run TestDocCurrent -update (-want +got):\n%s", d)
	}
}
