// Package ui is the dashboard: a Bubble Tea program that shows the
// host's RDMA devices, ports, GIDs, IRQs, counters and every process's
// verbs objects live, with the verbs shell in a pane.
//
// It only renders and forwards. The data comes in as messages from
// pollers that run off the UI goroutine (inspect's watch stream,
// sysfsmon's readings), from feeds (feeds.go: a Feed's readings are
// messages, the next waited for after each; Sources.Feeds hands new
// sources to the views that take them) and from the shell through
// shell/front's Engine;
// package dash wires them in (Sources, with a Control over the pollers
// or a Replay over a recording) and builds the model with New, so this
// package imports no cgo code. Update does no I/O and never blocks: work
// that waits or reads the system runs in tea.Cmds.
//
// One root model returns the tea.View. It holds every view of the
// registry (registry.go) as a page with its table, routes messages to
// the views, and lays the screen out after each message (layout.go):
// every part is sized there, so View only reads the model. View does no
// I/O but one: with Options.FrameFile set (the render tests' window onto
// what was drawn, framefile.go) it writes each new frame to that file.
// The header, tables, detail, help and shell pane render strings at
// their size.
//
// Adding a view: write a value implementing component (view.go: its
// columns and filter, how it takes messages, its heading, detail, empty
// note and keys) in a file of its own, and add its viewSpec (name,
// aliases, title, constructor) to registry. The tab row, the ':' jump
// and its completion, '?', --view and ViewNames follow from the
// registry; TestAddedViewNeedsOnlyTheRegistry does exactly this. The
// commands ':' runs (`:learn`, `:q`) are lines of the same registry,
// with a run of their own in place of a view. Every view has its
// file (view_NAME.go); the object kinds' views share objectView
// (view_objects.go) and the sysfs readings' share sysfsView
// (view_sysfs.go), each giving only its columns, since one row builder
// makes their rows. A view that is not a table (the overview's boxes,
// view_overview.go and boxes.go) also implements drawn: it draws its
// body at the size it is given, and names the view a click opens.
// The panes below the main area (the shell's, the lesson's) are lines of
// paneRegistry (panes.go), each with the one rule of when it is on
// screen; hasShellPane is the shell pane's.
//
// A view over a new source is its file, its registry line and a Feed
// (FeedOf) in Sources.Feeds: TestAddedSourceNeedsOnlyItsViewAndFeed.
package ui
