package cli

import (
	"embed"
	"strings"
)

// The commands' help texts after their flags are documentation, kept as
// text in help/NAME.txt: they read as they print, and an edit of one is
// not an edit of code. {{views-json}} stands for the sysfs views' shared
// paragraph (help/views-json.txt), {{port}} for export's default port.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpText is help/NAME.txt with its stand-ins filled in. A name with no
// file says so in the text, which TestHelpTexts catches for every
// command.
func helpText(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		return "(no help text: cli/help/" + name + ".txt is missing from this build)"
	}
	if name == "views-json" {
		return string(b)
	}
	return strings.NewReplacer("{{views-json}}", helpText("views-json"), "{{port}}", exportPort).Replace(string(b))
}
