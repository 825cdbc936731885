package lab

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// markerKind names the lines /init prints for the host to find.
type markerKind int

// The markers, in the order a good boot prints them.
const (
	markerNone   markerKind = iota
	markerProbe             // the guest reached /init (accelerator probe)
	markerReady             // modules loaded, rxe0 up, the command starts
	markerExit              // the command ended; Code holds its status
	markerFail              // /init gave up; Reason says why
	markerKernel            // the kernel reported trouble; Reason is its line
)

// marker is one marker found on the console.
type marker struct {
	Kind   markerKind
	Code   int
	Reason string
}

const (
	markOpen  = "<<<VERBSCOPE-"
	markClose = ">>>"
)

// parseMarker looks for a marker in one console line. It returns the text
// before the marker (a command's last line may lack its newline) and the
// marker. Lines without a well-formed marker come back whole with ok false.
func parseMarker(line string) (before string, m marker, ok bool) {
	i := strings.Index(line, markOpen)
	if i < 0 {
		return line, marker{}, false
	}
	rest := line[i+len(markOpen):]
	j := strings.Index(rest, markClose)
	if j < 0 {
		return line, marker{}, false
	}
	word, arg, _ := strings.Cut(rest[:j], " ")
	switch word {
	case "PROBE":
		m.Kind = markerProbe
	case "READY":
		m.Kind = markerReady
	case "EXIT":
		code, err := strconv.Atoi(arg)
		if err != nil || code < 0 || code > 255 {
			return line, marker{}, false
		}
		m.Kind, m.Code = markerExit, code
	case "FAIL":
		m.Kind, m.Reason = markerFail, arg
	case "KERNEL":
		m.Kind, m.Reason = markerKernel, arg
	default:
		return line, marker{}, false
	}
	return line[:i], m, true
}

// kernelTroubleRE matches a line the kernel printed straight to the
// console (only emergencies pass the guest's console log level) that means
// the guest is in trouble: the same words as init.sh's kwatch.
// Compiled at first use, not in every verbscope process at start.
var kernelTroubleRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\[\s*[0-9]+\.[0-9]+\] .*(soft lockup|hung task|blocked for more than|BUG:|Oops|invoked oom-killer|Out of memory|Kernel panic|self-detected stall)`)
})

// kernelTrouble reports whether a console line is the kernel saying it is
// in trouble, printed directly rather than through a marker.
func kernelTrouble(line string) bool { return kernelTroubleRE().MatchString(line) }

// cleanLine removes what the serial console adds: the carriage returns of
// its CRLF line ends.
func cleanLine(s string) string {
	return strings.TrimRight(s, "\r")
}
