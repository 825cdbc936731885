//go:build vm

package cli

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/ui"
)

// TestLabDashboardRendersEveryFrame is issue 18 as it was found: the
// dashboard in the lab VM (verbscope lab -i, as make run starts it) in
// a tmux pane with Debian tmux's default TERM, screen. The guest's
// bytes pass qemu's serial console and this host's terminal on their way
// to tmux; after every view, :irq then :doctor, the help and 15 s of
// live refreshes, the screen must be the frame the dashboard drew,
// which it writes to a folder shared with the guest. (No --demo: its
// pair spins on two vCPUs under TCG, and the test is about the bytes.)
func TestLabDashboardRendersEveryFrame(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "verbscope")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	guest := "VERBSCOPE_DASH_FRAME=/mnt/host/frame verbscope dash --no-trace --interval " + renderInterval
	cmd := bin + " lab -i --share " + dir + " -- '" + guest + "'; echo lab-status=$?; sleep 600"
	s := startTmux(t, "render-lab", "screen", cmd, 160, 48)
	frame := filepath.Join(dir, "frame")
	// Booting the VM and starting the 25 MB binary over 9p under TCG
	// takes up to 90 s on a loaded host.
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(s.screen(), "1 ports") { // the overview, the first view
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard never showed its QP view:\n%s", s.screen())
		}
		time.Sleep(time.Second)
	}
	notTyping := func(l []string) bool { return len(l) > 0 && !typingAt(l, ":") }
	screenIsFrame(t, s, frame, "the first frame", nil)
	for _, v := range append(ui.ViewNames(), "irq", "doctor", "qp") {
		s.press(":")
		s.typeText(v)
		s.press("Enter")
		screenIsFrame(t, s, frame, ":"+v, notTyping)
	}
	s.press("?")
	screenIsFrame(t, s, frame, "help", func(l []string) bool { return strings.Contains(strings.Join(l, "\n"), "key closes)") })
	s.press("Escape")
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); { // five refreshes
		screenIsFrame(t, s, frame, "live refresh", nil)
		time.Sleep(time.Second)
	}
	s.press("q")
	waitForText(t, s.screen, "lab-status=0")
}
