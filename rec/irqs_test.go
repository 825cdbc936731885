package rec

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/sysfsmon"
)

// irqAt is an mlx5 device's two completion vectors at a full reading i:
// vector 0 takes 100 interrupts a second on CPU 1, vector 1 none.
func irqAt(i int, t time.Time) *sysfsmon.IRQSnapshot {
	n := uint64(100 * i)
	return &sysfsmon.IRQSnapshot{Time: t, CPUs: []int{0, 1}, Devices: []sysfsmon.DeviceIRQs{{
		Device: "mlx5_0", PCI: "0000:3b:00.0", IRQs: []sysfsmon.IRQ{
			{IRQ: 140, Name: "mlx5_comp0@pci:0000:3b:00.0", Mode: "msix", Listed: true, Counts: []uint64{0, n}, Total: n, Affinity: "1", Effective: "1", Node: -1},
			{IRQ: 141, Name: "mlx5_comp1@pci:0000:3b:00.0", Mode: "msix", Listed: true, Counts: []uint64{7, 0}, Total: 7, Affinity: "0", Effective: "0", Node: -1},
		}}}}
}

// TestIRQsRecorded: the IRQs sysfsmon reads on its full readings (here
// every third) are recorded when they move, repeated on keyframes, and
// rebuilt for any reading as the last IRQ reading up to it, with rates
// against the IRQ reading before; a version 1 file has none.
func TestIRQsRecorded(t *testing.T) {
	ctx := context.Background()
	w, path := createT(t, "irqs.vsrec", Host{Devices: []string{"mlx5_0"}}, WriterOptions{KeyEvery: 4})
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	if err := w.Frame(ctx, inspect.Frame{Seq: 1, Snapshot: &inspect.Snapshot{Time: t0}}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		u := sysfsmon.Update{Seq: i, Time: at(i)}
		if i%3 == 0 {
			u.IRQs = irqAt(i, at(i))
		}
		if err := w.writeSys(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := openT(t, path)
	sys, err := r.Readings(ctx, "sys")
	if err != nil || len(sys) != 10 {
		t.Fatalf("%d sys readings (%v), want 10", len(sys), err)
	}
	for i, rd := range sys {
		s, err := r.irqsAt(ctx, rd.Seq)
		if err != nil {
			t.Fatal(err)
		}
		want := irqAt(i/3*3, at(i/3*3))
		if d := cmp.Diff(want, s); d != "" {
			t.Errorf("reading %d's IRQs (-want +got):\n%s", i, d)
		}
	}
	// Played back, reading 7 (IRQs of 6) has rates against reading 3's.
	p, err := NewPlayer(ctx, r, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	u, ok := p.sysAt(ctx, at(7))
	if !ok || u.IRQs == nil || len(u.IRQRates) != 2 {
		t.Fatalf("played back at 7 s: IRQs %+v, rates %+v", u.IRQs, u.IRQRates)
	}
	if r := u.IRQRates[0]; r.IRQ != 140 || r.PerCPU[1] != 100 || r.PerCPU[0] != 0 {
		t.Errorf("IRQ 140's rate %+v, want 100/s on CPU 1", r)
	}

	// An older file: the same recording marked version 1 reads without.
	r.Close()
	if err := setVersion(path, 1); err != nil {
		t.Fatal(err)
	}
	old := openT(t, path)
	if s, err := old.irqsAt(ctx, sys[5].Seq); err != nil || s != nil {
		t.Errorf("a version 1 file's IRQs: %+v, %v; want none", s, err)
	}
}
