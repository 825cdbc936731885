package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/ui"
)

// Without a terminal, the dashboard says so and names the CLI views;
// verbscope alone prints the overview instead.
func TestDashNeedsTerminal(t *testing.T) {
	var out, errw bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errw}
	if code := run(context.Background(), []string{"dash"}, env); code != 1 {
		t.Errorf("verbscope dash without a terminal exited %d, want 1", code)
	}
	if !strings.Contains(errw.String(), "needs a terminal") || !strings.Contains(errw.String(), "verbscope res") {
		t.Errorf("no word of the terminal or the CLI views: %q", errw.String())
	}
	out.Reset()
	if code := run(context.Background(), nil, env); code != 0 || !strings.Contains(out.String(), "dash ") {
		t.Errorf("verbscope alone without a terminal should list the commands (exit %d): %q", code, out.String())
	}
}

func TestDashRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"dash", "--interval", "1ms"}, {"dash", "extra"}, {"dash", "--interval", "xyz"}} {
		var out, errw bytes.Buffer
		env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errw}
		if code := run(context.Background(), args, env); code != 2 {
			t.Errorf("%v exited %d, want 2: %s", args, code, errw.String())
		}
	}
}

// The dash command's help lists every view the dashboard has, from its
// registry.
func TestDashHelpListsEveryView(t *testing.T) {
	var out, errw bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errw}
	run(context.Background(), []string{"help", "dash"}, env)
	help := out.String() + errw.String()
	for _, v := range ui.Views() {
		if !strings.Contains(help, "  "+v.Name+" ") || !strings.Contains(help, v.About) {
			t.Errorf("the dash help lacks the %s view (%s):\n%s", v.Name, v.About, help)
		}
	}
}
