// Package themes holds the dashboard's semantic styles: one slot per
// meaning (selected, header, ok, warn, error, dim, new, changed, vanished,
// ours…), never per widget, so a theme is a short list a user can write.
//
// Built in: dark, light, high-contrast and mono; "auto" picks dark or
// light from the terminal's background (the ui asks the terminal with
// tea.RequestBackgroundColor and calls Load again with the answer). User
// themes are files in $XDG_CONFIG_HOME/verbscope/themes/NAME.theme
// (file.go reads the format). With NO_COLOR set to any non-empty value,
// every theme loses its colours and keeps bold, faint, underline and
// reverse (https://no-color.org).
package themes
