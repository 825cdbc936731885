package ui

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// Replay steers a recording played back (dash --replay), or the live
// dashboard's rewind (its last minutes, kept as a recording): Res and
// Sys then carry the recorded frames, and these keys move through them.
// Every call returns at once.
type Replay interface {
	// Step moves n readings (back when negative) and pauses.
	Step(n int)
	// Event moves to the next (dir > 0) or previous reading where an
	// object appeared or vanished, a QP changed state or an alert came;
	// with match, only to one where that happened to an object match
	// takes (its kind, its row as the views print it).
	Event(dir int, match func(k inspect.Kind, r view.Row) bool)
	// SeekTo moves to a time written as dash --replay's --at takes it
	// (start, end, -3m, 09:24:05, 2026-12-01T09:24:05) and pauses; an
	// error says what it could not read.
	SeekTo(text string) error
	TogglePlay()
	Faster()
	Slower()
	// Resume returns a rewind to live; a recording has no live, and
	// stays.
	Resume()
	// Position is where the playback is.
	Position() ReplayPosition
}

// ReplayPosition is a playback's place, for the header.
type ReplayPosition struct {
	Time       time.Time
	Index, Len int
	Playing    bool
	Speed      int
	// Rewind says this is the live dashboard's rewind, not a recording:
	// Live while it shows the live readings, else Behind them by so much.
	Rewind, Live bool
	Behind       time.Duration
}

// replayKeys are the playback's keys; `<` and `>` are the speed here,
// not the sort (s and S still sort).
type replayKeys struct {
	Back, Forward, PrevEvent, NextEvent, Seek, Play, Slower, Faster key.Binding
	// Live returns a rewind to live (esc, when no detail is open).
	Live key.Binding
}

func defaultReplayKeys() replayKeys {
	b := func(k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc))
	}
	return replayKeys{
		Back:      b("[", "one reading back"),
		Forward:   b("]", "one reading forward"),
		PrevEvent: b("{", "previous event (with a filter, of what it shows)"),
		NextEvent: b("}", "next event (with a filter, of what it shows)"),
		Seek:      b("t", "jump to a time"),
		Play:      key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "play / pause")),
		Slower:    b("<", "play slower"),
		Faster:    b(">", "play faster (to 64×)"),
		Live:      b("esc", "back to live (] at the newest reading too)"),
	}
}

func (k replayKeys) list(rewind bool) []key.Binding {
	l := []key.Binding{k.Back, k.Forward, k.PrevEvent, k.NextEvent, k.Seek, k.Play, k.Slower, k.Faster}
	if rewind {
		l = append(l, k.Live)
	}
	return l
}

// replayKey steers the playback; ok is false for a key that is not
// one of its own.
func (m *model) replayKey(msg tea.KeyPressMsg) bool {
	r, k := m.c.src.Replay, m.keys.replay
	if r == nil {
		return false
	}
	if p := r.Position(); p.Rewind {
		switch {
		case p.Live && !key.Matches(msg, k.Back, k.PrevEvent, k.Seek):
			// Live, only the keys that go back are the rewind's: the
			// others keep their live meaning (< > sort).
			return false
		case !p.Live && key.Matches(msg, k.Live) && m.mode != modeDetail:
			r.Resume()
			return true
		}
	}
	switch {
	case key.Matches(msg, k.Back):
		r.Step(-1)
	case key.Matches(msg, k.Forward):
		r.Step(+1)
	case key.Matches(msg, k.PrevEvent):
		r.Event(-1, m.eventMatch())
	case key.Matches(msg, k.NextEvent):
		r.Event(+1, m.eventMatch())
	case key.Matches(msg, k.Seek):
		m.startLine(modeTime, "time ", "")
	case key.Matches(msg, k.Play):
		r.TogglePlay()
	case key.Matches(msg, k.Slower):
		r.Slower()
	case key.Matches(msg, k.Faster):
		r.Faster()
	default:
		return false
	}
	return true
}

// eventMatch is the filter of the view shown, for `{` and `}`: with a
// filter on an object view, the next event is one of an object the
// view shows. nil (every event) without a filter, on a view of no
// object kind, or while the filter words do not parse.
func (m *model) eventMatch() func(inspect.Kind, view.Row) bool {
	kind, words := m.cur.kind, m.cur.table.filter
	if kind == "" || len(words) == 0 {
		return nil
	}
	fs, err := view.ParseFilterWords(string(kind), words)
	if err != nil {
		return nil
	}
	return func(k inspect.Kind, r view.Row) bool { return k == kind && fs.Match(r) }
}

// replayField is the header's word on the playback: REPLAY, or REWIND
// and how far behind live, the time shown, where among the readings,
// and playing or paused.
func (m *model) replayField(p ReplayPosition) string {
	th := m.c.theme
	word := th.Render(themes.SlotWarn, "REPLAY")
	if p.Rewind {
		word = th.Render(themes.SlotWarn, "REWIND "+p.Behind.Round(time.Second).String()+" behind live")
	}
	s := word + " " + p.Time.Format("2006-01-02 15:04:05") +
		" (" + strconv.Itoa(p.Index+1) + "/" + strconv.Itoa(p.Len) + ") "
	if p.Playing {
		return s + "▶ " + strconv.Itoa(p.Speed) + "×"
	}
	return s + "paused (space plays)"
}
