package ui

import (
	"context"
	"errors"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// maxScrollback bounds the pane's output.
const maxScrollback = 5000

// shellPane is the verbs shell in a pane: scrollback, a line with
// completion shown as go-prompt shows it, history, and commands that run
// in Cmds so the screen never freezes.
type shellPane struct {
	keys  shellKeys
	eng   front.Engine
	hist  *front.History
	input textinput.Model
	lines []paneLine
	// scroll is how many lines the view is scrolled up from the bottom.
	scroll int
	// queue holds commands typed or pasted while another runs.
	queue    []front.Line
	running  string
	cancel   context.CancelFunc
	progress string
	// answer is the line where the last command's answer starts, which
	// the compact pane shows.
	answer  int
	comp    front.Completion
	compFor string
	compSel int
	compSeq int
	state   front.State
	w, h    int
	// lessonFn reads the course's state after each command (nil: no
	// course); lesson is the last read.
	lessonFn func() Lesson
	lesson   *Lesson
	// replay is set while the dashboard shows a recording's past: the
	// pane then shows recorded, read-only.
	replay   bool
	recorded recordedShell
}

type paneLine struct {
	slot themes.Slot // "" for plain output
	text string
}

// Messages of the pane, each the answer of a Cmd.
type (
	shellDoneMsg struct {
		cmd    string
		res    front.Result
		err    error
		state  front.State
		lesson *Lesson
	}
	shellEventMsg struct {
		ev   front.Event
		ok   bool
		from <-chan front.Event // the engine's channel it came from
	}
	shellCompleteMsg struct {
		seq  int
		line string
		c    front.Completion
	}
)

func newShellPane(eng front.Engine, hist *front.History, th *themes.Theme) *shellPane {
	in := textinput.New()
	in.Prompt = "verbs> "
	in.SetStyles(inputStyles(th))
	in.KeyMap.AcceptSuggestion.Unbind()
	in.KeyMap.NextSuggestion.Unbind()
	in.KeyMap.PrevSuggestion.Unbind()
	if hist == nil {
		hist = front.NewHistory(front.DefaultHistory)
	}
	p := &shellPane{keys: defaultShellKeys(), eng: eng, hist: hist, input: in}
	p.say(themes.SlotDim, "the verbs shell of this dashboard: 'help' lists the commands, Tab completes, esc returns to the view")
	return p
}

func inputStyles(th *themes.Theme) textinput.Styles {
	st := textinput.Styles{}
	st.Focused.Prompt = th.Style(themes.SlotAccent)
	st.Blurred.Prompt = th.Style(themes.SlotDim)
	st.Focused.Placeholder = th.Style(themes.SlotDim)
	st.Blurred.Placeholder = th.Style(themes.SlotDim)
	st.Blurred.Text = th.Style(themes.SlotDim)
	st.Cursor.Blink = false // a blinking cursor redraws the screen twice a second
	return st
}

func (p *shellPane) say(slot themes.Slot, text string) {
	p.lines = appendSay(p.lines, slot, text)
	if n := len(p.lines) - maxScrollback; n > 0 {
		p.lines = append([]paneLine(nil), p.lines[n:]...)
		p.answer = max(0, p.answer-n)
	}
}

// appendSay appends text's lines, made printable.
func appendSay(lines []paneLine, slot themes.Slot, text string) []paneLine {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		lines = append(lines, paneLine{slot, view.Printable(l)})
	}
	return lines
}

func (p *shellPane) focus() tea.Cmd { return p.input.Focus() }

func (p *shellPane) blur() { p.input.Blur() }

// events waits for the shell's next event.
func (p *shellPane) events() tea.Cmd {
	ch := p.eng.Events()
	return func() tea.Msg {
		ev, ok := <-ch
		return shellEventMsg{ev, ok, ch}
	}
}

// submit queues the input's commands (a typed line or a paste of many)
// and starts the first if none runs.
func (p *shellPane) submit(text string) tea.Cmd {
	lines := front.Lines(text)
	if strings.TrimSpace(text) != "" {
		p.hist.Add(strings.TrimSpace(text))
	}
	p.hist.Reset()
	if len(lines) == 0 {
		p.say("", "verbs> "+text)
		return nil
	}
	p.queue = append(p.queue, lines...)
	return p.next()
}

func (p *shellPane) next() tea.Cmd {
	if p.running != "" || len(p.queue) == 0 {
		return nil
	}
	l := p.queue[0]
	p.queue = p.queue[1:]
	p.say(themes.SlotAccent, "verbs> "+l.Text)
	if l.Exit {
		p.say(themes.SlotDim, "the pane's shell lives as long as the dashboard: esc leaves the pane, q quits (every object is destroyed then)")
		return p.next()
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.running, p.cancel, p.progress = l.Text, cancel, ""
	eng, cmd, lessonFn := p.eng, l.Text, p.lessonFn
	return func() tea.Msg {
		res, err := eng.Exec(ctx, cmd)
		msg := shellDoneMsg{cmd: cmd, res: res, err: err, state: eng.State()}
		if lessonFn != nil {
			l := lessonFn()
			msg.lesson = &l
		}
		return msg
	}
}

// done shows a command's result and starts the next queued one.
func (p *shellPane) done(msg shellDoneMsg) tea.Cmd {
	if p.cancel != nil {
		p.cancel()
	}
	p.running, p.cancel, p.progress = "", nil, ""
	p.state = msg.state
	if msg.lesson != nil {
		p.lesson = msg.lesson
	}
	p.answer = len(p.lines)
	if msg.err != nil {
		p.sayError(msg.err)
		if len(p.queue) > 0 {
			p.say(themes.SlotDim, "stopped: the rest of the pasted commands were not run")
			p.queue = nil
		}
	} else if msg.res.Text != "" {
		p.say("", msg.res.Text)
	}
	p.scroll = 0
	return p.next()
}

func (p *shellPane) sayError(err error) {
	var fe *front.Error
	if !errors.As(err, &fe) {
		p.say(themes.SlotError, err.Error())
		return
	}
	p.say(themes.SlotError, fe.What)
	if fe.Why != "" {
		p.say(themes.SlotWarn, "  why: "+strings.ReplaceAll(fe.Why, "\n", "\n       "))
	}
	if fe.Fix != "" {
		p.say(themes.SlotOK, "  fix: "+strings.ReplaceAll(fe.Fix, "\n", "\n       "))
	}
}

// cancelRunning cancels the running command; false when none runs.
func (p *shellPane) cancelRunning() bool {
	if p.running == "" || p.cancel == nil {
		return false
	}
	p.cancel()
	p.queue = nil
	p.say(themes.SlotWarn, "^C: cancelling "+p.running)
	return true
}

func (p *shellPane) event(ev front.Event) {
	switch ev.Kind {
	case front.EventProgress:
		p.progress = ev.Text
		p.say(themes.SlotDim, "… "+ev.Text)
	case front.EventAsync:
		p.say(themes.SlotWarn, "event: "+ev.Text)
	case front.EventLesson:
		p.say(themes.SlotOK, ev.Text)
	default:
		p.say(themes.SlotDim, ev.Text)
	}
}

// lessonMsg is the course's state read again after it moved on between
// commands.
type lessonMsg struct{ lesson Lesson }

// reread reads the course's state again (in a Cmd) when the course said
// it moved on without a command: a step done by the device or another
// program. Other events leave the lesson as the last command left it.
func (p *shellPane) reread(ev front.Event) tea.Cmd {
	if ev.Kind != front.EventLesson || p.lessonFn == nil {
		return nil
	}
	fn := p.lessonFn
	return func() tea.Msg { return lessonMsg{fn()} }
}

// complete asks the shell for candidates at the cursor (in a Cmd: it
// may list devices).
func (p *shellPane) complete() tea.Cmd {
	line, cur := p.input.Value(), p.input.Position()
	if line == p.compFor {
		return nil
	}
	p.compSeq++
	seq, eng := p.compSeq, p.eng
	bytePos := len(string([]rune(line)[:min(cur, len([]rune(line)))]))
	return func() tea.Msg { return shellCompleteMsg{seq: seq, line: line, c: eng.Complete(line, bytePos)} }
}

func (p *shellPane) completed(msg shellCompleteMsg) {
	if msg.seq != p.compSeq || msg.line != p.input.Value() {
		return // stale: the line changed since
	}
	p.comp, p.compFor, p.compSel = msg.c, msg.line, -1
	if p.input.Value() == "" {
		p.comp.Items = nil
	}
}

// accept puts the selected candidate (Tab cycles them) into the line.
func (p *shellPane) accept(delta int) {
	items := p.comp.Items
	if len(items) == 0 {
		return
	}
	p.compSel = (p.compSel + delta + len(items)) % len(items)
	line := p.compFor
	start, end := min(p.comp.Start, len(line)), min(p.comp.End, len(line))
	val := line[:start] + items[p.compSel].Text + line[end:]
	p.input.SetValue(val)
	p.input.SetCursor(len([]rune(line[:start] + items[p.compSel].Text)))
}

// key handles a key while the pane has focus.
func (p *shellPane) key(msg tea.KeyPressMsg) tea.Cmd {
	km := p.keys
	switch {
	case key.Matches(msg, km.run):
		text := p.input.Value()
		p.input.SetValue("")
		p.comp, p.compFor = front.Completion{}, ""
		return p.submit(text)
	case key.Matches(msg, km.complete):
		p.accept(+1)
		return nil
	case key.Matches(msg, km.completeBack):
		p.accept(-1)
		return nil
	case key.Matches(msg, km.older):
		if s, ok := p.hist.Prev(p.input.Value()); ok {
			p.input.SetValue(s)
			p.input.CursorEnd()
		}
		return p.complete()
	case key.Matches(msg, km.newer):
		if s, ok := p.hist.Next(); ok {
			p.input.SetValue(s)
			p.input.CursorEnd()
		}
		return p.complete()
	case key.Matches(msg, km.scrollUp):
		lines, _ := p.shown()
		p.scroll = min(p.scroll+5, max(0, len(lines)-1))
		return nil
	case key.Matches(msg, km.scrollDown):
		p.scroll = max(0, p.scroll-5)
		return nil
	case key.Matches(msg, km.clear):
		p.lines, p.scroll = nil, 0
		return nil
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	p.compSel = -1
	return tea.Batch(cmd, p.complete())
}

// paste runs a pasted text: a single line goes into the input, several
// lines run one by one.
func (p *shellPane) paste(text string) tea.Cmd {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	if !strings.Contains(strings.TrimRight(text, "\n"), "\n") && !strings.HasSuffix(text, "\n") {
		p.input.SetValue(p.input.Value() + text)
		p.input.CursorEnd()
		return p.complete()
	}
	whole := p.input.Value() + text
	p.input.SetValue("")
	return p.submit(whole)
}

// shellKeys are the keys the pane takes for itself.
type shellKeys struct {
	run, complete, completeBack, older, newer, scrollUp, scrollDown, clear key.Binding
}

func defaultShellKeys() shellKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return shellKeys{
		run:          b("enter", "run", "enter"),
		complete:     b("tab", "complete / next candidate", "tab"),
		completeBack: b("shift+tab", "previous candidate", "shift+tab"),
		older:        b("↑", "older command", "up"),
		newer:        b("↓", "newer command", "down"),
		scrollUp:     b("PgUp", "scroll back", "pgup"),
		scrollDown:   b("PgDn", "scroll forward", "pgdown"),
		clear:        b("ctrl+l", "clear", "ctrl+l"),
	}
}

func (k shellKeys) bindings() []key.Binding {
	return []key.Binding{k.run, k.complete, k.completeBack, k.older, k.newer, k.scrollUp, k.scrollDown, k.clear}
}

// setSize sizes the pane and its input line.
func (p *shellPane) setSize(w, h int) {
	p.w, p.h = w, h
	p.input.SetWidth(max(1, w-len(p.input.Prompt)-1))
}

// render draws the pane in its size: a rule with the title, the
// scrollback, the completion popup over its bottom, the input line.
func (p *shellPane) render(th *themes.Theme, focused bool) string {
	w, h := p.w, p.h
	if h < 3 {
		return ""
	}
	lines, answer := p.shown()
	title := " shell "
	if p.replay {
		title = p.recorded.title
	} else if p.running != "" {
		title += "· running " + p.running
		if p.progress != "" {
			title += " · " + p.progress
		}
		title += " (ctrl+c cancels) "
	} else if !focused {
		title += "(tab to type) "
	}
	if p.scroll > 0 {
		title += "· scrolled back "
	}
	ruleSlot := themes.SlotBorder
	if focused {
		ruleSlot = themes.SlotAccent
	}
	rule := "─"
	if th.ASCII {
		rule = "-"
	}
	head := ansi.Truncate(rule+rule+title, w, "…")
	head += strings.Repeat(rule, max(0, w-ansi.StringWidth(head)))
	body := h - 2
	popup := p.popup(th, w, min(6, body))
	outH := body - len(popup)
	end := max(0, len(lines)-p.scroll)
	start := max(0, end-outH)
	if outH == 1 && p.scroll == 0 && answer < len(lines) {
		// Compact: the last answer's first line says how it went.
		start, end = answer, answer+1
	}
	var b strings.Builder
	b.WriteString(th.Render(ruleSlot, head))
	shown := 0
	for i := start; i < end; i++ {
		b.WriteByte('\n')
		l := lines[i]
		text := pad(ansi.Truncate(l.text, w, "…"), w)
		if l.slot != "" {
			text = th.Render(l.slot, text)
		}
		b.WriteString(text)
		shown++
	}
	for ; shown < outH; shown++ {
		b.WriteByte('\n')
	}
	for _, l := range popup {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	b.WriteByte('\n')
	if p.replay {
		b.WriteString(th.Render(themes.SlotDim, pad(ansi.Truncate("replay: read-only, the recorded session up to the time shown", w, "…"), w)))
		return b.String()
	}
	b.WriteString(ansi.Truncate(p.input.View(), w, ""))
	return b.String()
}

// shown is the scrollback drawn and where its last answer starts: the
// pane's own, or the recording's in a replay.
func (p *shellPane) shown() ([]paneLine, int) {
	if p.replay {
		return p.recorded.lines, p.recorded.answer
	}
	return p.lines, p.answer
}

// popup lists completion candidates: the text, then its description in
// the dim style, the selected one highlighted, as go-prompt shows them.
func (p *shellPane) popup(th *themes.Theme, w, h int) []string {
	items := p.comp.Items
	if len(items) == 0 || h <= 0 || !p.input.Focused() {
		return nil
	}
	textW := 0
	for _, it := range items {
		textW = max(textW, ansi.StringWidth(it.Text))
	}
	textW = min(textW, w/2)
	first := 0
	if p.compSel >= h {
		first = p.compSel - h + 1
	}
	var out []string
	for i := first; i < len(items) && len(out) < h; i++ {
		it := items[i]
		line := " " + align(it.Text, textW, false) + "  "
		desc := ansi.Truncate(it.Description, max(0, w-ansi.StringWidth(line)-1), "…")
		if i == p.compSel {
			out = append(out, th.Render(themes.SlotSelected, pad(line+desc, w)))
			continue
		}
		out = append(out, th.Render(themes.SlotAccent, line)+th.Render(themes.SlotDim, pad(desc, w-ansi.StringWidth(line))))
	}
	return out
}
