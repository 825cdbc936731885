package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

func TestJumpToEveryView(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false)
	for _, v := range ViewNames() {
		m.Update(m.jumpMsg(v))
		if m.cur.name != v {
			t.Errorf(":%s went to %s", v, m.cur.name)
		}
	}
	m.Update(m.jumpMsg("nosuch"))
	if !strings.Contains(screen(m), `no view "nosuch": views are overview qp cq`) {
		t.Errorf("an unknown view should list the views:\n%s", screen(m))
	}
}

func TestFilterAndClear(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false)
	all, _ := m.cur.table.Counts()
	if all < 2 {
		t.Fatalf("the rc-rts recording has %d QPs; the test needs two or more", all)
	}
	send(m, "/")
	typeText(m, "type=GSI")
	send(m, "enter")
	shown, total := m.cur.table.Counts()
	if shown != 1 || total != all {
		t.Fatalf("type=GSI shows %d of %d, want 1 of %d", shown, total, all)
	}
	if !strings.Contains(screen(m), "["+itoa(1)+"/"+itoa(all)+"]") || !strings.Contains(screen(m), "</type=GSI>") {
		t.Errorf("the title should count rows shown/total and show the filter:\n%s", screen(m))
	}
	send(m, "esc")
	if shown, _ := m.cur.table.Counts(); shown != all {
		t.Errorf("esc should clear the filter: %d shown of %d", shown, all)
	}
	send(m, "/")
	typeText(m, "state=BOGUS")
	send(m, "enter")
	if !strings.Contains(screen(m), "RESET") || !strings.Contains(screen(m), "BOGUS") {
		t.Errorf("an impossible state should name the valid ones:\n%s", screen(m))
	}
}

func TestSortAndSelectionFollowsKey(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false)
	send(m, "s")
	if !strings.Contains(screen(m), "sort link") {
		t.Errorf("s should sort by the first column:\n%s", screen(m))
	}
	send(m, "s", "G") // by lqpn; the highest QP number
	sel, _ := m.cur.table.Selected()
	send(m, "S") // reversed: the same QP is now first
	after, _ := m.cur.table.Selected()
	if after.Key != sel.Key || m.cur.table.cursor != 0 {
		t.Errorf("reversing moved the selection from %s to %s (cursor %d, want 0)", sel.Key, after.Key, m.cur.table.cursor)
	}
	// A refresh keeps the object selected.
	for _, f := range recordedFrames(t, "rc-rts") {
		m.Update(resMsg{m.resBuilder.build(f, front.State{})})
	}
	if again, _ := m.cur.table.Selected(); again.Key != sel.Key {
		t.Errorf("a refresh moved the selection from %s to %s", sel.Key, again.Key)
	}
}

func TestQPDetailShowsHistory(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false)
	send(m, "/")
	typeText(m, "type=RC")
	send(m, "enter", "enter")
	if m.mode != modeDetail {
		t.Fatal("enter did not open the detail")
	}
	out := screen(m)
	for _, want := range []string{"state history", "RTS", "PSNs", "process", "retries      completer_retry_err", "PD           pdn"} {
		if !strings.Contains(out, want) {
			t.Errorf("the QP detail lacks %q:\n%s", want, out)
		}
	}
	send(m, "esc")
	if m.mode != modeNormal {
		t.Error("esc should leave the detail")
	}
}

func TestFocusAndPane(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 100, 30, true)
	eng := m.c.src.Shell.(*fakeEngine)
	send(m, "tab")
	if !m.paneFocus {
		t.Fatal("tab should focus the shell pane")
	}
	typeText(m, "q") // in the pane, q is a letter, not quit
	if m.quitting {
		t.Fatal("q quit from inside the shell pane")
	}
	send(m, "backspace")
	typeText(m, "mod")
	m.Update(shellCompleteMsg{seq: m.pane.compSeq, line: "mod", c: eng.Complete("mod", 3)})
	if out := screen(m); !strings.Contains(out, "modify") || !strings.Contains(out, "move a QP to another state") {
		t.Errorf("the completion popup should show candidates with descriptions:\n%s", out)
	}
	send(m, "tab")
	if m.pane.input.Value() != "modify" {
		t.Errorf("tab should take the candidate, line is %q", m.pane.input.Value())
	}
	_, cmd := m.Update(keyMsg("enter"))
	runCmd(m, cmd)
	if len(eng.ran) != 1 || eng.ran[0] != "modify" {
		t.Fatalf("enter should run the line, ran %v", eng.ran)
	}
	if !strings.Contains(screen(m), "ran modify") {
		t.Errorf("the result should show in the pane:\n%s", screen(m))
	}
	send(m, "esc")
	if m.paneFocus {
		t.Error("esc should leave the pane")
	}
}

func TestPasteRunsLineByLine(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 100, 30, true)
	eng := m.c.src.Shell.(*fakeEngine)
	send(m, "tab")
	_, cmd := m.Update(tea.PasteMsg{Content: "open; pd\nls\n"})
	runCmd(m, cmd)
	if strings.Join(eng.ran, "|") != "open|pd|ls" {
		t.Errorf("a pasted text should run command by command, ran %q", eng.ran)
	}
	_, cmd = m.Update(tea.PasteMsg{Content: "bogus\nls\n"})
	runCmd(m, cmd)
	if strings.Join(eng.ran, "|") != "open|pd|ls|bogus" || !strings.Contains(screen(m), "fix: help lists the commands") {
		t.Errorf("a failed pasted command stops the rest and shows why/fix, ran %q:\n%s", eng.ran, screen(m))
	}
}

func TestCancelRunningCommand(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 100, 30, true)
	eng := m.c.src.Shell.(*fakeEngine)
	eng.block = make(chan struct{})
	send(m, "tab")
	typeText(m, "listen")
	_, cmd := m.Update(keyMsg("enter"))
	done := make(chan tea.Msg, 1)
	go func() { done <- collect(cmd) }()
	if !strings.Contains(screen(m), "running listen") {
		t.Errorf("the pane should say what runs:\n%s", screen(m))
	}
	send(m, "ctrl+c")
	msg := <-done
	m.Update(msg)
	if m.quitting || m.pane.running != "" || !strings.Contains(screen(m), "listen: cancelled") {
		t.Errorf("ctrl+c in the pane should cancel the command, not quit:\n%s", screen(m))
	}
}

func TestResizeAndTooSmall(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 80, 24, true)
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 10})
	if out := screen(m); !strings.Contains(out, "terminal too small: 40×10") || !strings.Contains(out, "60×16") {
		t.Errorf("below the minimum it should say the size it needs:\n%s", out)
	}
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	checkFits(t, screen(m), 200, 60)
	_, cmd := m.Update(keyMsg("q"))
	if !m.quitting || cmd == nil {
		t.Error("q should quit outside the pane")
	}
}

func TestHelpIsGeneratedFromKeyMap(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 160, 48, true)
	send(m, "?")
	out := screen(m)
	for _, group := range m.helpGroups() {
		for _, b := range group {
			if !strings.Contains(out, b.Help().Desc) {
				t.Errorf("help lacks %q (%s)", b.Help().Desc, b.Help().Key)
			}
		}
	}
}

// runCmd runs a Cmd and feeds its messages back, as the program would,
// for the pane's Exec and completion answers (not the pollers').
func runCmd(m *model, cmd tea.Cmd) {
	for i := 0; cmd != nil && i < 20; i++ {
		msg := collect(cmd)
		if msg == nil {
			return
		}
		_, cmd = m.Update(msg)
	}
}

// collect runs a Cmd (and batches) and returns the first shell message.
func collect(cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if r := collect(c); r != nil {
				if _, ok := r.(shellEventMsg); !ok {
					return r
				}
			}
		}
		return nil
	}
	switch msg.(type) {
	case shellDoneMsg, shellCompleteMsg, openViewMsg:
		return msg
	}
	return nil
}

// Before any data arrives every view draws (the first frame is drawn
// before the pollers answer).
func TestEveryViewBeforeData(t *testing.T) {
	th := mustLoad(t, "dark", false)
	m := newModel(Sources{Shell: newFakeEngine()}, Options{}, th)
	for _, sz := range sizes {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		for _, v := range ViewNames() {
			m.Update(m.jumpMsg(v))
			checkFits(t, screen(m), sz[0], sz[1])
			send(m, "enter", "esc", "?", "x")
		}
	}
}

func TestMouse(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, true)
	hh := strings.Count(m.header(), "\n") + 1
	// A click on the third data row (below the title and column names).
	m.Update(tea.MouseClickMsg{X: 5, Y: hh + headerLines + 2, Button: tea.MouseLeft})
	if m.cur.table.cursor != 2 {
		t.Errorf("a click on the third row put the cursor on %d", m.cur.table.cursor)
	}
	m.Update(tea.MouseWheelMsg{X: 5, Y: hh + 3, Button: tea.MouseWheelUp})
	if m.cur.table.cursor != 0 {
		t.Errorf("the wheel up should scroll to the top, cursor %d", m.cur.table.cursor)
	}
	// A click on the "port" tab of the view row.
	x := strings.Index(ansiStrip(m.tabs()), "port")
	m.Update(tea.MouseClickMsg{X: x + 1, Y: hh - 1, Button: tea.MouseLeft})
	if m.cur.name != "port" {
		t.Errorf("a click on the port tab went to %s", m.cur.name)
	}
	m.Update(tea.MouseClickMsg{X: 3, Y: m.h - 3, Button: tea.MouseLeft})
	if !m.paneFocus {
		t.Error("a click in the shell pane should focus it")
	}
}

// A background part's notice (trace without privileges) shows on the
// status line.
func TestNotice(t *testing.T) {
	ch := make(chan string, 1)
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false, func(s *Sources) { s.Notices = ch })
	ch <- "trace: QP histories show states only: no CAP_BPF"
	m.Update(nextFeed(t, m.Init()))
	if !strings.Contains(screen(m), "trace: QP histories show states only: no CAP_BPF") {
		t.Errorf("the notice is not on the status line:\n%s", screen(m))
	}
}

// TestFilterFollowsChangedObject: a filter's answers are kept per object
// while rows are reused; a QP whose state changes is a new object and is
// asked again.
func TestFilterFollowsChangedObject(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false)
	f := recordedFrames(t, "rc-rts")[0]
	s := *f.Snapshot
	s.QPs = append([]inspect.QP(nil), s.QPs...)
	f.Snapshot = &s
	m.Update(resMsg{m.resBuilder.build(f, front.State{})})
	send(m, "/")
	typeText(m, "state=ERR")
	send(m, "enter")
	if shown, _ := m.cur.table.Counts(); shown != 0 {
		t.Fatalf("state=ERR shows %d QPs of a host with none in ERR", shown)
	}
	m.Update(resMsg{m.resBuilder.build(f, front.State{})}) // the same frame again: rows reused
	if shown, _ := m.cur.table.Counts(); shown != 0 {
		t.Fatalf("state=ERR shows %d QPs after an unchanged frame", shown)
	}
	s2 := s
	s2.QPs = append([]inspect.QP(nil), s.QPs...)
	s2.QPs[0].State = rdma.QPStateErr
	s2.MarkChanged(rdma.KindQP)
	f.Snapshot = &s2
	m.Update(resMsg{m.resBuilder.build(f, front.State{})})
	if shown, _ := m.cur.table.Counts(); shown != 1 {
		t.Errorf("state=ERR shows %d QPs after one moved to ERR, want 1", shown)
	}
}

// A failed save of the shell history is said on the status line.
func TestHistorySaveFailureShown(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, true)
	m.c.src.SaveHistory = func(*front.History) error { return errors.New("front: save history /x: permission denied") }
	msg := m.afterShell()()
	batch, ok := msg.(tea.BatchMsg)
	if !ok {
		batch = tea.BatchMsg{func() tea.Msg { return msg }}
	}
	for _, c := range batch {
		if c != nil {
			if r := c(); r != nil {
				m.Update(r)
			}
		}
	}
	if !strings.Contains(screen(m), "shell history not saved: front: save history /x: permission denied") {
		t.Errorf("the failed save is not on the status line:\n%s", screen(m))
	}
}

// The events view opens at the newest event and follows new ones, as
// less +F does; moving up pauses it, G follows again; the title says
// which.
func TestEventsFollowNewest(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false)
	m.Update(m.jumpMsg("events"))
	_, n := m.cur.table.Counts()
	if n < 3 {
		t.Fatalf("the recordings give %d events; the test needs three or more", n)
	}
	at := func(want int, title string) {
		t.Helper()
		if m.cur.table.cursor != want {
			t.Errorf("cursor on row %d, want %d of %d", m.cur.table.cursor, want, n)
		}
		if !strings.Contains(screen(m), title) {
			t.Errorf("the title should say %q:\n%s", title, screen(m))
		}
	}
	at(n-1, "following new rows")
	// A state change, seen twice: every new frame adds its events.
	f := recordedFrames(t, "rc-rts")[0]
	s := *f.Snapshot
	s.Time = s.Time.Add(time.Hour) // later than the fixture's frames
	s.QPs = append([]inspect.QP(nil), s.QPs...)
	s.QPs[0].State = rdma.QPStateErr
	s.MarkChanged(rdma.KindQP)
	f.Snapshot = &s
	m.Update(resMsg{m.resBuilder.build(f, front.State{})})
	_, n2 := m.cur.table.Counts()
	if n2 <= n {
		t.Fatalf("a QP moved to ERR added no event (%d then %d)", n, n2)
	}
	n = n2
	at(n-1, "following new rows")
	send(m, "k")
	at(n-2, "paused (G follows again)")
	s2 := s
	s2.Time = s.Time.Add(time.Second)
	s2.QPs = append([]inspect.QP(nil), s.QPs...)
	s2.QPs[0].State = rdma.QPStateReset
	s2.MarkChanged(rdma.KindQP)
	f.Snapshot = &s2
	m.Update(resMsg{m.resBuilder.build(f, front.State{})})
	_, n2 = m.cur.table.Counts()
	at(n-2, "paused (G follows again)") // the reader's row stays put
	n = n2
	send(m, "G")
	at(n-1, "following new rows")
}

// The frame that a shell command's refresh brings marks what the command
// created (◆), although the Cmd that waited for it began before the
// command ran.
func TestOursMarkedInTheFirstFrame(t *testing.T) {
	f := recordedFrames(t, "rc-rts")[0]
	var qp *inspect.QP
	for i := range f.Snapshot.QPs {
		if q := &f.Snapshot.QPs[i]; q.HasPID() {
			qp = q
			break
		}
	}
	if qp == nil {
		t.Fatal("the rc-rts recording has no user QP")
	}
	pid := int(qp.PID)
	if qp.TGID != 0 {
		pid = int(qp.TGID)
	}
	th := mustLoad(t, "dark", true)
	ch := make(chan inspect.Frame, 1)
	eng := newFakeEngine()
	m := newModel(Sources{Res: ch, Shell: eng, Interval: time.Second}, Options{}, th)
	wait := m.waitRes() // waiting before the command, as the model always is
	eng.state = front.State{PID: pid}.Put(front.Object{ID: 1, Kind: rdma.KindQP, Name: "qp1", QPN: qp.LQPN})
	ch <- f
	msg, ok := wait().(resMsg)
	if !ok {
		t.Fatal("waitRes gave no frame")
	}
	for _, r := range msg.d.rows[rdma.KindQP] {
		if r.res != nil && r.res.qp != nil && r.res.qp.LQPN == qp.LQPN && r.res.qp.DevName == qp.DevName {
			if !r.Ours || r.OursName != "qp1" {
				t.Errorf("QP %d: ours=%v name=%q, want ◆ qp1 in the first frame after the command", qp.LQPN, r.Ours, r.OursName)
			}
			return
		}
	}
	t.Errorf("QP %d is not in the frame's rows", qp.LQPN)
}

// The shell pane is compact (its rule, the last answer's first line, the
// prompt) while nobody types in it; tab grows it; z in the view and
// ctrl+t in the pane cycle its size when focused, and the choice stays.
func TestPaneSplit(t *testing.T) {
	const w, h = 100, 40
	m := fixtureModel(t, "rxe0", "dark", w, h, true)
	room := h - headerHeight - 1
	want := func(paneH int, focus bool, step string) {
		t.Helper()
		if m.lay.paneH != paneH || m.paneFocus != focus {
			t.Errorf("%s: pane %d rows (focused %v), want %d (focused %v)", step, m.lay.paneH, m.paneFocus, paneH, focus)
		}
		if got := strings.Count(screen(m), "\n") + 1; got != h {
			t.Errorf("%s: the screen has %d lines, want %d", step, got, h)
		}
	}
	want(paneCompact, false, "at start")
	send(m, "tab")
	want(room/3, true, "tab")
	typeText(m, "open")
	_, cmd := m.Update(keyMsg("enter"))
	runCmd(m, cmd)
	send(m, "ctrl+t")
	want(room/2, true, "ctrl+t once")
	send(m, "ctrl+t")
	want(room-mainMin, true, "ctrl+t twice")
	if m.pane.input.Value() != "" {
		t.Errorf("ctrl+t was typed into the pane: %q", m.pane.input.Value())
	}
	send(m, "ctrl+t")
	want(paneCompact, false, "ctrl+t thrice: the view's split")
	if !strings.Contains(screen(m), "ran open") {
		t.Errorf("the compact pane should show the last answer's first line:\n%s", screen(m))
	}
	send(m, "z")
	want(room/3, true, "z in the view: back to a third")
	send(m, "esc")
	want(paneCompact, false, "esc")
	send(m, "tab")
	want(room/3, true, "tab again: the split chosen stays")
}

// Each overview box opens its full view: by its digit, or by a click
// anywhere in it.
func TestOverviewOpensItsViews(t *testing.T) {
	for _, w := range []int{80, 160} { // one column, two
		m := fixtureModel(t, "rxe0", "dark", w, 40, false)
		hh := strings.Count(m.header(), "\n") + 1
		for _, b := range overviewBoxes {
			m.Update(m.jumpMsg("overview"))
			_, cmd := m.Update(keyMsg(b.key))
			runCmd(m, cmd)
			if m.cur.name != b.view {
				t.Errorf("%d wide: %s went to %s, want %s", w, b.key, m.cur.name, b.view)
			}
		}
		m.Update(m.jumpMsg("overview"))
		lines := strings.Split(screen(m), "\n")
		for _, b := range overviewBoxes {
			// The click lands on the box's title.
			y, x := -1, -1
			for i, l := range lines {
				if j := strings.Index(l, " "+b.key+" "+b.title+" "); j >= 0 && i >= hh {
					y, x = i, len([]rune(l[:j]))+2
					break
				}
			}
			if y < 0 {
				t.Errorf("%d wide: no %q box on screen", w, b.title)
				continue
			}
			m.Update(m.jumpMsg("overview"))
			_, cmd := m.Update(tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
			runCmd(m, cmd)
			if m.cur.name != b.view {
				t.Errorf("%d wide: a click on the %s box went to %s, want %s", w, b.title, m.cur.name, b.view)
			}
		}
	}
}

// The tab row fits the screen: wider than the screen, it shows the views
// around the current one with ‹ › where others are left out, and a click
// on a tab still opens that view.
func TestTabRowFits(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 80, 24, false)
	for _, v := range ViewNames() {
		m.Update(m.jumpMsg(v))
		row := ansiStrip(m.tabs())
		if n := ansi.StringWidth(row); n > 80 {
			t.Errorf("at :%s the tab row is %d cells: %q", v, n, row)
		}
		if !strings.Contains(" "+row+" ", " "+v+" ") {
			t.Errorf("at :%s the tab row does not show it: %q", v, row)
		}
	}
	m.Update(m.jumpMsg("fleet"))
	row := ansiStrip(m.tabs())
	if !strings.HasPrefix(row, "‹ ") {
		t.Errorf("at the last view the row should say views are left out before it: %q", row)
	}
	hh := strings.Count(m.header(), "\n") + 1
	x := strings.Index(row, "doctor")
	m.Update(tea.MouseClickMsg{X: len([]rune(row[:x])) + 1, Y: hh - 1, Button: tea.MouseLeft})
	if m.cur.name != "doctor" {
		t.Errorf("a click on the doctor tab went to %s", m.cur.name)
	}
}
