package inspect

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/verbscope/verbscope/view"
)

// FollowHooks are what Follow hands on: each line to print, and what is
// not a line.
type FollowHooks struct {
	// Line prints one line; its error ends the follow.
	Line func(FollowLine) error
	// Empty hears that the first reading held no QP to print.
	Empty func()
	// Retry hears a reading after the first that failed; the next one
	// is awaited.
	Retry func(error)
}

// Follow feeds frames (a Watcher's, or live's) through f and hands each
// line to h.Line, until frames end, h.Line fails or count changes went
// out (0: no limit): `verbscope res qp --follow`. A failed first reading
// is the error: there is nothing to follow yet.
func (f *QPFollower) Follow(frames <-chan Frame, count int, h FollowHooks) error {
	first := true
	printed := 0
	for fr := range frames {
		if fr.Err != nil {
			if first {
				return fr.Err
			}
			h.Retry(fr.Err)
			continue
		}
		lines := f.Next(fr)
		if first && len(lines) == 0 {
			h.Empty()
		}
		first = false
		for _, l := range lines {
			if err := h.Line(l); err != nil {
				return err
			}
			if l.Change() {
				printed++
				if count > 0 && printed >= count {
					return nil
				}
			}
		}
	}
	return nil
}

// Text is one line of res qp --follow with its newline, as text or, with
// asJSON, one JSON object.
func (l FollowLine) Text(asJSON bool) string {
	r := l.View()
	if asJSON {
		return string(append(r.AppendJSON(nil), '\n'))
	}
	return r.Text() + "\n"
}

// followTime is the text's clock: a person reads the order of events
// microseconds apart (a QP's INIT, RTR and RTS).
const followTime = "15:04:05.000000"

// View is the line as a row, which view prints as text and JSON.
// The text is a present QP as res qp prints it; "12:00:00.200000
// appeared <row>"; "12:00:00.300000 rxe0 lqpn 17 INIT→RTR path_mtu=1024
// by ibv_rc_pingpong[812]". The JSON is "time" and "event", then res qp
// -j's keys for a QP's line, or for a change "ifname", "lqpn", "from"
// and "state" ("to" for a failed modify) and the traced "modify".
func (l FollowLine) View() view.Row {
	r := view.Row{
		{Key: "time", Text: l.Time.Format(followTime), Value: l.Time.UTC().Format(time.RFC3339Nano), Bare: true},
		{Key: "event", Text: string(l.Event), Value: string(l.Event), Bare: true},
	}
	switch l.Event {
	case FollowPresent:
		r[0].NoText, r[1].NoText = true, true
		return append(r, l.Row...)
	case FollowAppeared, FollowVanished:
		return append(r, l.Row...)
	}
	r[1].NoText = true
	r = append(r, view.Field{Key: "ifname", Text: l.Key.Dev, Value: l.Key.Dev, Bare: true},
		view.Field{Key: "lqpn", Text: strconv.FormatUint(uint64(l.Key.ID), 10), Value: uint64(l.Key.ID)})
	// A change has a from and a to, unless it is a traced modify
	// without IB_QP_STATE.
	if l.Modify == nil || l.Modify.HasState {
		to := "state"
		if l.Event == FollowModifyFailed {
			to = "to"
		}
		r = append(r, view.Field{Key: "from", Value: l.From.String(), NoText: true},
			view.Field{Key: to, Text: l.From.String() + "→" + l.To.String(), Value: l.To.String(), Bare: true})
	} else {
		r = append(r, view.Field{Key: "change", Text: "modify", Bare: true, NoJSON: true})
	}
	if l.Modify == nil {
		return r
	}
	m := l.Modify.View()
	if set := m.SetText(); set != "" {
		r = append(r, view.Field{Key: "set", Text: set, Bare: true, NoJSON: true})
	}
	if m.Ret < 0 {
		r = append(r, view.Field{Key: "ret", Text: "= " + strconv.Itoa(m.Ret) + " " + m.Errno, Bare: true, NoJSON: true})
	}
	by := m.Process()
	if m.Check != "" {
		by += ": " + m.Check
	}
	return append(r, view.Field{Key: "by", Text: by, NoJSON: true},
		view.Field{Key: "modify", Value: json.RawMessage(m.AppendJSON(nil, true)), NoText: true})
}
