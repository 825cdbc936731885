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

// Replay steers a recording played back (dash --replay): Res and Sys
// then carry the recorded frames, and these keys move through them.
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
	// Position is where the playback is.
	Position() ReplayPosition
}

// ReplayPosition is a playback's place, for the header.
type ReplayPosition struct {
	Time       time.Time
	Index, Len int
	Playing    bool
	Speed      int
}

// replayKeys are the playback's keys; `<` and `>` are the speed here,
// not the sort (s and S still sort).
type replayKeys struct {
	Back, Forward, PrevEvent, NextEvent, Seek, Play, Slower, Faster key.Binding
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
	}
}

func (k replayKeys) list() []key.Binding {
	return []key.Binding{k.Back, k.Forward, k.PrevEvent, k.NextEvent, k.Seek, k.Play, k.Slower, k.Faster}
}

// replayKey steers the playback; ok is false for a key that is not
// one of its own.
func (m *model) replayKey(msg tea.KeyPressMsg) bool {
	r, k := m.c.src.Replay, m.keys.replay
	if r == nil {
		return false
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

// replayField is the header's word on the playback: REPLAY, the time
// shown, where among the readings, and playing or paused.
func (m *model) replayField() string {
	p := m.c.src.Replay.Position()
	th := m.c.theme
	s := th.Render(themes.SlotWarn, "REPLAY") + " " + p.Time.Format("2006-01-02 15:04:05") +
		" (" + strconv.Itoa(p.Index+1) + "/" + strconv.Itoa(p.Len) + ") "
	if p.Playing {
		return s + "▶ " + strconv.Itoa(p.Speed) + "×"
	}
	return s + "paused (space plays)"
}
