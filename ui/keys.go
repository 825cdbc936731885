package ui

import "charm.land/bubbles/v2/key"

// keyMap is every key the dashboard answers; `?` shows it, generated
// from these bindings, so help cannot drift from what the keys do.
type keyMap struct {
	Up, Down, Top, Bottom, PageUp, PageDown key.Binding
	Open, Back                              key.Binding
	Command, Filter                         key.Binding
	Sort, Reverse                           key.Binding
	Pause, Faster, Slower                   key.Binding
	Focus, Split, Help, Quit, Cancel        key.Binding
	// replay are the playback's keys, listed only when replaying.
	replay   replayKeys
	replayOn bool
	rewindOn bool
}

// defaultKeyMap follows k9s and htop habits.
func defaultKeyMap() keyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return keyMap{
		Up:       b([]string{"up", "k"}, "↑/k", "up"),
		Down:     b([]string{"down", "j"}, "↓/j", "down"),
		Top:      b([]string{"g", "home"}, "g", "first row"),
		Bottom:   b([]string{"G", "end"}, "G", "last row"),
		PageUp:   b([]string{"pgup", "ctrl+b"}, "PgUp", "page up"),
		PageDown: b([]string{"pgdown", "ctrl+f"}, "PgDn", "page down"),
		Open:     b([]string{"enter"}, "enter", "open the selection"),
		Back:     b([]string{"esc"}, "esc", "back / clear filter"),
		Command:  b([]string{":"}, ":", "go to a view (:qp :dev …)"),
		Filter:   b([]string{"/"}, "/", "filter (state=ERR pid=N words)"),
		Sort:     b([]string{"s", ">"}, "s", "sort by the next column"),
		Reverse:  b([]string{"S", "<"}, "S", "reverse the sort"),
		Pause:    b([]string{"p"}, "p", "pause / resume refresh"),
		Faster:   b([]string{"+"}, "+", "refresh faster"),
		Slower:   b([]string{"-"}, "-", "refresh slower"),
		Focus:    b([]string{"tab"}, "tab", "focus the shell pane / the view"),
		// ctrl+t as well as z: in the pane every letter is typed.
		Split:  b([]string{"z", "ctrl+t"}, "z/ctrl+t", "cycle the shell pane's size (⅓, ½, shell, view)"),
		Help:   b([]string{"?"}, "?", "help"),
		Quit:   b([]string{"q"}, "q", "quit"),
		Cancel: b([]string{"ctrl+c"}, "ctrl+c", "cancel the shell command / quit"),
		replay: defaultReplayKeys(),
	}
}

// ShortHelp is the footer's line.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Command, k.Filter, k.Open, k.Sort, k.Pause, k.Focus, k.Help, k.Quit}
}

// FullHelp is the `?` screen, in columns (the views add their own keys
// to the third, helpGroups).
func (k keyMap) FullHelp() [][]key.Binding {
	cols := [][]key.Binding{
		{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown},
		{k.Command, k.Filter, k.Open, k.Back, k.Sort, k.Reverse},
		{k.Pause, k.Faster, k.Slower},
		{k.Focus, k.Split, k.Help, k.Quit, k.Cancel},
	}
	if k.replayOn {
		cols = append(cols, k.replay.list(k.rewindOn))
	}
	return cols
}
