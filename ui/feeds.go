package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/shell/front"
)

// Messages of the pollers' channels (Sources), each read in a Cmd.
type (
	resMsg       struct{ d *resData }
	resClosedMsg struct{}
	sysMsg       struct{ d *sysData }
	sysClosedMsg struct{}
	// noticeMsg is one line of Sources.Notices.
	noticeMsg struct{ text string }
)

// waitRes waits for the next watch frame and builds its rows (in the Cmd's
// goroutine: building 10,000 rows is not the UI's work).
func (m *model) waitRes() tea.Cmd {
	if m.c.src.Res == nil {
		return nil
	}
	ch, p := m.c.src.Res, m.resBuilder
	eng := m.c.src.Shell
	if m.pane == nil {
		eng = nil
	}
	return func() tea.Msg {
		f, ok := <-ch
		if !ok {
			return resClosedMsg{}
		}
		// The shell's state now, not when this Cmd began waiting: the
		// frame a command's refresh brings marks what it just created
		// (Engine.State is safe to call from any goroutine).
		var st front.State
		if eng != nil {
			st = eng.State()
		}
		return resMsg{p.build(f, st)}
	}
}

func (m *model) waitSys() tea.Cmd {
	if m.c.src.Sys == nil {
		return nil
	}
	ch, p, ascii := m.c.src.Sys, m.sysBuilder, m.c.theme.ASCII
	return func() tea.Msg {
		u, ok := <-ch
		if !ok {
			return sysClosedMsg{}
		}
		return sysMsg{p.build(u, ascii)}
	}
}

func (m *model) waitNotice() tea.Cmd {
	ch := m.c.src.Notices
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return nil
		}
		return noticeMsg{s}
	}
}
