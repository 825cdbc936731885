package doctor

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

// Text helpers shared by the checks: lists, counts, limits, durations.

// when returns s if cond holds, else "".
func when(cond bool, s string) string {
	if cond {
		return s
	}
	return ""
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// plural returns "1 QP" or "2 QPs".
func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	if strings.HasSuffix(what, "s") {
		return fmt.Sprintf("%d %ses", n, what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// bytesOrUnlimited prints a memlock limit: its size, or "unlimited".
func bytesOrUnlimited(l sysfsmon.Limit) string {
	if l.Unlimited {
		return "unlimited"
	}
	return view.Bytes(l.Value).String()
}

func tookText(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%d µs", d.Microseconds())
}

func pct(x float64) string {
	if x > 0 && x < 0.001 {
		return "<0.1%"
	}
	return strconv.FormatFloat(x*100, 'f', 1, 64) + "%"
}

// errnoText names an error's errno ("ENOENT"), or prints the error.
func errnoText(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		return rdma.ErrnoMeaning(en).Name
	}
	return err.Error()
}
