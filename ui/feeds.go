package ui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/shell/transcript"
	"github.com/verbscope/verbscope/sysfsmon"
)

// Messages of the pollers' channels (Sources), each read in a Cmd.
type (
	resMsg       struct{ d *resData }
	resClosedMsg struct{}
	sysMsg       struct{ d *sysData }
	sysClosedMsg struct{}
	// kernelMsg is the events and the QPs' kernel lines after kernel
	// log lines that came between frames.
	kernelMsg struct {
		events    []tableRow
		eventsGen uint64
		kernel    map[inspect.Key][]string
	}
	// noticeMsg is one line of Sources.Notices (a Feed).
	noticeMsg struct{ text string }
)

// waitRes waits for the next watch frame and builds its rows (in the Cmd's
// goroutine: building 10,000 rows is not the UI's work), or for the
// kernel log's next lines, which come on their own: a line must not wait
// for a frame (a stalled dump, a slow diagnosis, a paused recording).
func (m *model) waitRes() tea.Cmd {
	if m.c.src.Res == nil {
		return nil
	}
	ch, p, look, kern := m.c.src.Res, m.resBuilder, m.c.src.Owners, m.c.src.Kernel
	eng := m.c.src.Shell
	if m.pane == nil {
		eng = nil
	}
	return func() tea.Msg {
		for {
			select {
			case f, ok := <-ch:
				if !ok {
					return resClosedMsg{}
				}
				// The shell's state now, not when this Cmd began
				// waiting: the frame a command's refresh brings
				// marks what it just created (Engine.State is safe
				// to call from any goroutine).
				var st front.State
				if eng != nil {
					st = eng.State()
				}
				p.recordKernel(drainKernel(kern))
				d := p.build(f, st)
				if look != nil && f.Snapshot != nil {
					d.owners = p.owners.Of(f, look)
				}
				return resMsg{d}
			case l, ok := <-kern:
				if !ok {
					kern = nil // the log's reader ended; frames go on
					continue
				}
				p.recordKernel(append([]sysfsmon.KernelLine{l}, drainKernel(kern)...))
				return kernelMsg{events: p.events, eventsGen: p.eventsGen, kernel: p.kernel}
			}
		}
	}
}

// gotKernel takes the events after kernel log lines that came between
// frames: the events view and the QP details show them at once.
func (m *model) gotKernel(k kernelMsg) tea.Cmd {
	if d := m.c.res; d != nil {
		c := *d
		c.events, c.eventsGen, c.kernel = k.events, k.eventsGen, k.kernel
		m.c.res = &c
	}
	return tea.Batch(m.routeAll(k), m.waitRes())
}

// drainKernel takes the kernel log lines that came since the last frame.
func drainKernel(ch <-chan sysfsmon.KernelLine) []sysfsmon.KernelLine {
	var out []sysfsmon.KernelLine
	for {
		select {
		case l, ok := <-ch:
			if !ok {
				return out
			}
			out = append(out, l)
		default:
			return out
		}
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

// Feed is a source of readings whose work ends at a message: each
// reading is waited for in a Cmd, comes to Update as a message, and the
// next is waited for then. Notices, Verdicts and ReplayShell come this
// way, and so does every one of Sources.Feeds, whose readings are their
// own messages for the views to take (component.take).
type Feed struct{ next func() (tea.Msg, bool) }

// FeedOf is a Feed of ch's readings, each the message the views take;
// a nil ch is no feed.
func FeedOf[T any](ch <-chan T) Feed { return feedOf(ch, func(v T) tea.Msg { return v }) }

// feedOf is a Feed of ch's readings, each made a message by msg.
func feedOf[T any](ch <-chan T, msg func(T) tea.Msg) Feed {
	if ch == nil {
		return Feed{}
	}
	return Feed{next: func() (tea.Msg, bool) {
		v, ok := <-ch
		if !ok {
			return nil, false
		}
		return msg(v), true
	}}
}

// feedMsg is a reading of the model's feed i, as its message.
type feedMsg struct {
	i   int
	msg tea.Msg
}

// feeds are the model's feeds: the Sources fields that are plain feeds,
// then Sources.Feeds.
func feeds(src Sources) []Feed {
	return append([]Feed{
		feedOf(src.Notices, func(s string) tea.Msg { return noticeMsg{s} }),
		feedOf(src.Verdicts, func(v Verdicts) tea.Msg { return verdictsMsg{v} }),
		feedOf(src.ReplayShell, func(ls []transcript.Line) tea.Msg { return replayShellMsg{ls} }),
	}, src.Feeds...)
}

// wait waits for feed i's next reading; a closed feed is read no more.
func (m *model) wait(i int) tea.Cmd {
	next := m.feeds[i].next
	if next == nil {
		return nil
	}
	return func() tea.Msg {
		msg, ok := next()
		if !ok {
			return nil
		}
		return feedMsg{i, msg}
	}
}

// gotFeed takes a feed's reading as its message and waits for the next.
func (m *model) gotFeed(f feedMsg) tea.Cmd {
	return tea.Batch(m.update(f.msg), m.wait(f.i))
}
