package lab

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The demo's pair loop gets the device, GID index and address as
// arguments: shell syntax in them stays text. A stand-in ibv_rc_pingpong
// records what it was given.
func TestDemoPairLoopArguments(t *testing.T) {
	dir := t.TempDir()
	log, injected := filepath.Join(dir, "args"), filepath.Join(dir, "injected")
	// Each end appends its arguments as one line in one write: the two
	// ends run at once, and a line written piece by piece was read, or
	// cut into by the other end's, before it was whole.
	fake := "#!/bin/sh\nline=\nfor a; do line=\"$line<$a>\"; done\nprintf '%s\\n' \"$line\" >> " + log + "\n"
	if err := os.WriteFile(filepath.Join(dir, "ibv_rc_pingpong"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":"+os.Getenv("PATH"))
	dev := "rxe0; touch " + injected + " #"
	ip := "$(touch " + injected + ")"
	cmd := pairLoop(context.Background(), dev, "1`touch "+injected+"`", ip)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	// One round takes 0.5 s; 10 s is 20x that.
	var lines []string
	for deadline := time.Now().Add(10 * time.Second); len(lines) < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the pair loop never ran both ends: %q", lines)
		}
		b, _ := os.ReadFile(log)
		text := string(b)
		text = text[:strings.LastIndexByte(text, '\n')+1] // whole lines only
		lines = strings.Fields(strings.ReplaceAll(text, " ", "␠"))
	}
	want := map[string]bool{
		strings.ReplaceAll("<-d><"+dev+"><-g><1`touch "+injected+"`><-n><3000>", " ", "␠"):         true,
		strings.ReplaceAll("<-d><"+dev+"><-g><1`touch "+injected+"`><-n><3000><"+ip+">", " ", "␠"): true,
	}
	for _, l := range lines[:2] {
		if !want[l] {
			t.Errorf("ibv_rc_pingpong got %s", strings.ReplaceAll(l, "␠", " "))
		}
	}
	if _, err := os.Stat(injected); err == nil {
		t.Error("a value given to the demo ran as a shell command")
	}
}

func TestDemoRefusesDeviceWords(t *testing.T) {
	if _, _, err := StartDemo(context.Background(), DemoOptions{Dev: "rxe0; modify qp1 rts"}); err == nil || !strings.Contains(err.Error(), "a device name is") {
		t.Errorf("StartDemo with a ';' in the device: %v", err)
	}
}
