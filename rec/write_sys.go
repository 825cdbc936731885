package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hash/fnv"

	"github.com/verbscope/verbscope/sysfsmon"
)

// sysState is what the recording last wrote of sysfsmon's readings.
type sysState struct {
	started bool
	seq     int // the last Update.Seq
	devs    map[string]uint64
	ctrs    map[string]uint64
}

func newSysState() sysState {
	return sysState{devs: map[string]uint64{}, ctrs: map[string]uint64{}}
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
		if err := s.writeDevices(ctx, tx, seq, key, u.Devices); err != nil {
			return err
		}
	}
	if u.Counters != nil {
		return s.writeCounters(ctx, tx, seq, key, u.Counters.Counters)
	}
	return nil
}

// writeDevices writes a device's sysfs view (its ports, GIDs and
// attributes, as JSON) when it appears, changes or vanishes, and every
// device on a keyframe.
func (s *sysState) writeDevices(ctx context.Context, tx *sql.Tx, seq int64, key bool, devs []sysfsmon.Device) error {
	put := func(op, dev string, body any) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO devices (seq, op, dev, body) VALUES (?, ?, ?, ?)", seq, op, dev, body)
		return err
	}
	seen := map[string]bool{}
	for i := range devs {
		d := &devs[i]
		body, err := json.Marshal(d)
		if err != nil {
			return err
		}
		h := fnv.New64a()
		h.Write(body)
		sum := h.Sum64()
		seen[d.Name] = true
		old, had := s.devs[d.Name]
		op := "key"
		switch {
		case !had:
			op = "appear"
		case old != sum:
			op = "change"
		case !key:
			continue
		}
		s.devs[d.Name] = sum
		if err := put(op, d.Name, string(body)); err != nil {
			return err
		}
	}
	for name := range s.devs {
		if !seen[name] {
			if err := put("vanish", name, nil); err != nil {
				return err
			}
			delete(s.devs, name)
		}
	}
	return nil
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
