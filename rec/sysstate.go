package rec

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

// Sys rebuilds the sysfs reading seq: its devices (ports, GIDs) and
// counters as known then, from the keyframe at or before it. Rates are
// left to the caller (sysfsmon.CounterRates against the reading
// before).
func (r *Reader) Sys(ctx context.Context, seq int64) (sysfsmon.Update, error) {
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
	err = r.each(ctx, `SELECT d.body FROM devices d JOIN (
			SELECT MAX(rowid) AS id FROM devices WHERE seq BETWEEN ?1 AND ?2 GROUP BY dev) l ON d.rowid = l.id
		WHERE d.op != 'vanish' ORDER BY d.dev`, func(rows *sql.Rows) error {
		var body []byte
		if err := rows.Scan(&body); err != nil {
			return err
		}
		return appendJSON(&u.Devices, body)
	}, key.Int64, seq)
	if err != nil {
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
