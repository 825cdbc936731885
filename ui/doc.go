// Package ui is the dashboard: a Bubble Tea program that shows the
// host's RDMA devices, ports, GIDs, IRQs, counters and every process's
// verbs objects live, with the verbs shell in a pane.
//
// It only renders and forwards. The data comes in as messages from
// pollers that run off the UI goroutine (inspect's watch stream,
// sysfsmon's Poll) and from the shell through shell/front's Engine; the
// cli package wires them in (Sources), so this package imports no cgo
// code. One root Model returns the tea.View; the table, header, detail,
// help and shell pane render strings at the size they are given. Update
// never blocks: work that waits or reads the system runs in tea.Cmds.
package ui
