package themes

import "charm.land/lipgloss/v2"

// builtin names the themes that need no file; "auto" is dark or light by
// the terminal's background.
var builtin = []string{"auto", "dark", "light", "high-contrast", "mono"}

func c(s string) spec { return spec{fg: lipgloss.Color(s), set: true} }

func (sp spec) b() spec { sp.bold = true; return sp }

// palettes are the built-in themes' specs. Colours are xterm-256 indexes,
// which every terminal the dashboard targets draws, and which the renderer
// downsamples on 16-colour terminals.
var palettes = map[string]map[Slot]spec{
	"dark": {
		SlotTitle: c("81").b(), SlotHeader: c("252").b(), SlotBorder: c("240"),
		SlotSelected: {reverse: true, bold: true, set: true}, SlotKey: c("81").b(),
		SlotOK: c("78"), SlotWarn: c("214"), SlotError: c("203").b(), SlotDim: c("245"),
		SlotNew: c("120"), SlotChanged: c("221"), SlotVanished: {fg: lipgloss.Color("240"), faint: true, set: true},
		SlotOurs: c("177"), SlotAccent: c("81").b(),
	},
	"light": {
		SlotTitle: c("25").b(), SlotHeader: c("235").b(), SlotBorder: c("248"),
		SlotSelected: {reverse: true, bold: true, set: true}, SlotKey: c("25").b(),
		SlotOK: c("28"), SlotWarn: c("130"), SlotError: c("160").b(), SlotDim: c("242"),
		SlotNew: c("22"), SlotChanged: c("94"), SlotVanished: {fg: lipgloss.Color("250"), faint: true, set: true},
		SlotOurs: c("90"), SlotAccent: c("25").b(),
	},
	// high-contrast uses only the 16 base colours at full intensity and
	// bold, for low-vision users and projectors in teaching rooms.
	"high-contrast": {
		SlotTitle: c("15").b(), SlotHeader: c("15").b(), SlotBorder: c("15"),
		SlotSelected: {fg: lipgloss.Color("0"), bg: lipgloss.Color("11"), bold: true, set: true}, SlotKey: c("11").b(),
		SlotOK: c("10").b(), SlotWarn: c("11").b(), SlotError: {fg: lipgloss.Color("15"), bg: lipgloss.Color("9"), bold: true, set: true},
		SlotDim: c("7"), SlotNew: c("14").b(), SlotChanged: c("11"), SlotVanished: {fg: lipgloss.Color("7"), underline: true, set: true},
		SlotOurs: c("13").b(), SlotAccent: c("14").b(),
	},
	// mono carries meaning in attributes alone.
	"mono": {
		SlotTitle: {bold: true, set: true}, SlotHeader: {bold: true, set: true}, SlotBorder: {set: true},
		SlotSelected: {reverse: true, set: true}, SlotKey: {bold: true, set: true},
		SlotOK: {set: true}, SlotWarn: {underline: true, set: true}, SlotError: {bold: true, underline: true, set: true},
		SlotDim: {faint: true, set: true}, SlotNew: {bold: true, set: true}, SlotChanged: {underline: true, set: true},
		SlotVanished: {faint: true, set: true}, SlotOurs: {bold: true, set: true}, SlotAccent: {bold: true, set: true},
	},
}
