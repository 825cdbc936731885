package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

// sys rebuilds the sysfs reading seq: its devices (ports, GIDs) and
// counters as known then, from the keyframe at or before it. Rates are
// left to the caller (sysfsmon.CounterRates against the reading
// before).
func (r *Reader) sys(ctx context.Context, seq int64) (sysfsmon.Update, error) {
	var key, t sql.NullInt64
	err := r.db.QueryRowContext(ctx, `SELECT (SELECT MAX(seq) FROM readings WHERE source = 'sys' AND keyframe AND seq <= ?1),
		(SELECT t FROM readings WHERE seq = ?1 AND source = 'sys')`, seq).Scan(&key, &t)
	if err != nil {
		return sysfsmon.Update{}, r.damaged(err)
	}
	if !key.Valid || !t.Valid {
		return sysfsmon.Update{}, fmt.Errorf("rec: %s: sysfs reading %d: %w", r.path, seq, ErrNoReading)
	}
	u := sysfsmon.Update{Seq: int(seq), Time: time.Unix(0, t.Int64)}
	err = r.latestBodies(ctx, "devices", key.Int64, seq, func(body []byte) error { return appendJSON(&u.Devices, body) })
	if err != nil {
		return sysfsmon.Update{}, r.damaged(err)
	}
	if u.IRQs, err = r.irqs(ctx, key.Int64, seq); err != nil {
		return sysfsmon.Update{}, r.damaged(err)
	}
	cs := &sysfsmon.CounterSnapshot{Time: u.Time}
	err = r.each(ctx, `SELECT c.dev, c.port, c.grp, c.name, c.value FROM counters c JOIN (
			SELECT MAX(rowid) AS id FROM counters WHERE seq BETWEEN ?1 AND ?2 GROUP BY dev, port, grp, name) l ON c.rowid = l.id
		ORDER BY c.dev, c.port, c.grp, c.name`, func(rows *sql.Rows) error {
		var c sysfsmon.Counter
		var v int64
		if err := rows.Scan(&c.Device, &c.Port, &c.Group, &c.Name, &v); err != nil {
			return err
		}
		c.Value, c.Error = uint64(v), sysfsmon.IsErrorCounter(c.Name)
		cs.Counters = append(cs.Counters, c)
		return nil
	}, key.Int64, seq)
	if err != nil {
		return sysfsmon.Update{}, r.damaged(err)
	}
	u.Counters = cs
	return u, nil
}

// latestBodies calls fn with each device's last body in table (devices,
// irqs) from the keyframe key to seq, by device; a device that vanished
// has none.
func (r *Reader) latestBodies(ctx context.Context, table string, key, seq int64, fn func([]byte) error) error {
	return r.each(ctx, `SELECT d.body FROM `+table+` d JOIN (
			SELECT MAX(rowid) AS id FROM `+table+` WHERE seq BETWEEN ?1 AND ?2 GROUP BY dev) l ON d.rowid = l.id
		WHERE d.op != 'vanish' ORDER BY d.dev`, func(rows *sql.Rows) error {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return err
		}
		return fn(body)
	}, key, seq)
}

// irqsAt rebuilds the devices' interrupts as the last IRQ reading up to
// the sys reading seq saw them (sysfsmon.IRQSnapshot); nil when none was
// recorded.
func (r *Reader) irqsAt(ctx context.Context, seq int64) (*sysfsmon.IRQSnapshot, error) {
	var key sql.NullInt64
	err := r.db.QueryRowContext(ctx, `SELECT MAX(seq) FROM readings WHERE source = 'sys' AND keyframe AND seq <= ?`, seq).Scan(&key)
	if err != nil {
		return nil, r.damaged(err)
	}
	if !key.Valid {
		return nil, fmt.Errorf("rec: %s: sysfs reading %d: %w", r.path, seq, ErrNoReading)
	}
	s, err := r.irqs(ctx, key.Int64, seq)
	if err != nil {
		return nil, r.damaged(err)
	}
	return s, nil
}

// irqs rebuilds the devices' interrupts as the last IRQ reading up to
// seq saw them; nil when none was recorded (a version 1 file, or a
// recording of IRQs never read).
func (r *Reader) irqs(ctx context.Context, key, seq int64) (*sysfsmon.IRQSnapshot, error) {
	if r.schema < 2 {
		return nil, nil
	}
	var s *sysfsmon.IRQSnapshot
	err := r.latestBodies(ctx, "irqs", key, seq, func(body []byte) error {
		var row irqRow
		if err := json.Unmarshal(body, &row); err != nil {
			return err
		}
		if s == nil {
			s = &sysfsmon.IRQSnapshot{Time: row.Time, CPUs: row.CPUs}
		}
		s.Devices = append(s.Devices, row.DeviceIRQs)
		return nil
	})
	return s, err
}
