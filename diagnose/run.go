package diagnose

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// RunOptions configure Run.
type RunOptions struct {
	// Readings is how many readings to take (default DefaultReadings),
	// Interval the pause between two (default DefaultInterval): a stall
	// shows only as PSNs that stand still while counters rise.
	Readings int
	Interval time.Duration
	// Peers are asked of the QPs that need judging; nil asks nobody.
	Peers Peers
	// Only, when set, limits the verdicts to one QP (ParseQP).
	Only *inspect.Key
	// Progress, when set, hears of each reading as it is taken (1-based).
	Progress func(reading, of int)
}

// The defaults of `verbscope diagnose`: with StallReadings 3, a QP that
// stood still through the first reading is judged at the fourth.
const (
	DefaultReadings = 5
	DefaultInterval = time.Second
)

// Run takes readings of this host's RDMA objects and counters through
// RDMA netlink and returns the verdicts of the last one: every QP that
// needs a look, or none.
func Run(ctx context.Context, o RunOptions) ([]Verdict, error) {
	if o.Readings <= 0 {
		o.Readings = DefaultReadings
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	conn, err := inspect.Dial()
	if err != nil {
		return nil, fmt.Errorf("diagnose: %w", err)
	}
	defer conn.Close()
	tr := inspect.NewTracker(inspect.TrackerConfig{Driver: sysfsDriver})
	d := New(Config{Peers: o.Peers})
	var vs []Verdict
	for i := 1; i <= o.Readings; i++ {
		if i > 1 {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(o.Interval):
			}
		}
		if o.Progress != nil {
			o.Progress(i, o.Readings)
		}
		s, err := conn.Snapshot(ctx, inspect.SnapshotOptions{})
		if err != nil {
			return nil, fmt.Errorf("diagnose: reading %d: %w", i, err)
		}
		u := tr.Update(s)
		vs = d.Observe(ctx, Reading{Snapshot: s, Update: u, History: tr.Histories()})
	}
	if o.Only != nil {
		var kept []Verdict
		for _, v := range vs {
			if v.Key() == *o.Only {
				kept = append(kept, v)
			}
		}
		vs = kept
	}
	return vs, nil
}

// ParseQP reads DEV/QPN ("rxe0/17").
func ParseQP(s string) (inspect.Key, error) {
	dev, num, ok := strings.Cut(s, "/")
	n, err := strconv.ParseUint(num, 10, 32)
	if !ok || dev == "" || err != nil {
		return inspect.Key{}, fmt.Errorf("diagnose: %q: want DEV/QPN, a device and a QP number as `verbscope res qp` shows them (rxe0/17)", s)
	}
	return inspect.Key{Kind: rdma.KindQP, Dev: dev, ID: uint32(n)}, nil
}
