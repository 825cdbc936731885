package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

// sysState is what the recording last wrote of sysfsmon's readings.
type sysState struct {
	started bool
	seq     int // the last Update.Seq
	devs    bodies
	irqs    bodies
	ctrs    map[string]uint64
}

func newSysState() sysState {
	return sysState{devs: bodies{}, irqs: bodies{}, ctrs: map[string]uint64{}}
}

// bodies are the JSON bodies last written to a table of one row per
// device (devices, irqs), by device.
type bodies map[string]string

// irqRow is a device's row in irqs: its interrupts as /proc/interrupts
// and /proc/irq showed them at Time (the IRQ reading's), with the CPU
// columns the per-CPU counts follow.
type irqRow struct {
	Time time.Time `json:"time"`
	CPUs []int     `json:"cpus"`
	sysfsmon.DeviceIRQs
}

func (s *sysState) write(ctx context.Context, tx *sql.Tx, seq int64, key bool, u sysfsmon.Update) error {
	if s.started && u.Seq > s.seq+1 {
		if err := gap(ctx, tx, seq, u.Time, "missed", fmt.Sprintf("%d sysfs readings not recorded (the recorder fell behind)", u.Seq-s.seq-1)); err != nil {
			return err
		}
	}
	s.started, s.seq = true, u.Seq
	if u.Err != nil {
		// The parts that could be read are still written.
		if err := gap(ctx, tx, seq, u.Time, "failed", u.Err.Error()); err != nil {
			return err
		}
	}
	if u.DevicesErr == nil {
		rows := make(map[string]any, len(u.Devices))
		for i := range u.Devices {
			rows[u.Devices[i].Name] = &u.Devices[i]
		}
		if err := s.devs.write(ctx, tx, "devices", seq, key, rows); err != nil {
			return err
		}
	}
	if err := s.writeIRQs(ctx, tx, seq, key, u); err != nil {
		return err
	}
	if u.Counters != nil {
		return s.writeCounters(ctx, tx, seq, key, u.Counters.Counters)
	}
	return nil
}

// write writes a device's row of table (its sysfs view, or its IRQs:
// rows, as JSON) when it appears, changes or vanishes, and every
// device's on a keyframe.
func (bs bodies) write(ctx context.Context, tx *sql.Tx, table string, seq int64, key bool, rows map[string]any) error {
	put := func(op, dev string, body any) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO "+table+" (seq, op, dev, body) VALUES (?, ?, ?, ?)", seq, op, dev, body)
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(rows)) {
		b, err := json.Marshal(rows[name])
		if err != nil {
			return err
		}
		body := string(b)
		old, had := bs[name]
		op := "key"
		switch {
		case !had:
			op = "appear"
		case old != body:
			op = "change"
		case !key:
			continue
		}
		bs[name] = body
		if err := put(op, name, body); err != nil {
			return err
		}
	}
	for name := range bs {
		if _, ok := rows[name]; !ok {
			if err := put("vanish", name, nil); err != nil {
				return err
			}
			delete(bs, name)
		}
	}
	return nil
}

// writeIRQs writes the devices' interrupts when sysfsmon read them (a
// full reading, every FullEvery: /proc/interrupts is not free) and they
// moved; a keyframe between full readings repeats the last ones, so a
// seek finds them from the keyframe on.
func (s *sysState) writeIRQs(ctx context.Context, tx *sql.Tx, seq int64, key bool, u sysfsmon.Update) error {
	if u.IRQs == nil || u.IRQsErr != nil {
		if !key {
			return nil
		}
		rows := make(map[string]any, len(s.irqs))
		for dev, body := range s.irqs {
			rows[dev] = json.RawMessage(body)
		}
		return s.irqs.write(ctx, tx, "irqs", seq, key, rows)
	}
	rows := make(map[string]any, len(u.IRQs.Devices))
	for _, d := range u.IRQs.Devices {
		rows[d.Device] = irqRow{Time: u.IRQs.Time, CPUs: u.IRQs.CPUs, DeviceIRQs: d}
	}
	return s.irqs.write(ctx, tx, "irqs", seq, key, rows)
}

// writeCounters writes each counter whose value moved, and every
// counter on a keyframe. Values above 2^63 (never seen: they are
// 64-bit counts from zero) wrap to negative in SQLite's integers.
func (s *sysState) writeCounters(ctx context.Context, tx *sql.Tx, seq int64, key bool, cs []sysfsmon.Counter) error {
	ins, err := tx.PrepareContext(ctx, "INSERT INTO counters (seq, dev, port, grp, name, value) VALUES (?, ?, ?, ?, ?, ?)")
	if err != nil {
		return err
	}
	defer ins.Close()
	for _, c := range cs {
		k := c.Key()
		if old, ok := s.ctrs[k]; ok && old == c.Value && !key {
			continue
		}
		s.ctrs[k] = c.Value
		if _, err := ins.ExecContext(ctx, seq, c.Device, c.Port, c.Group, c.Name, int64(c.Value)); err != nil {
			return err
		}
	}
	return nil
}
