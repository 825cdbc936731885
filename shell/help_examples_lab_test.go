//go:build lab

package shell

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/oob"
	"github.com/verbscope/verbscope/shell/front"
)

// TestHelpExamplesRun runs every command's help examples as written, in
// order, on a fresh session on the lab's rxe0: each must succeed. listen
// and dial need another host; a second session plays it (dialing or
// listening on the port the example names), over the VM's own address.
func TestHelpExamplesRun(t *testing.T) {
	labkit.Clean(t)
	for _, c := range commandList() {
		exs := helpExamples(c)
		if len(exs) == 0 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			s := labShell(t)
			for _, ex := range exs {
				for _, l := range front.Lines(ex) {
					peer := startPeer(t, l.Text)
					res, err := s.Exec(context.Background(), l.Text)
					if err != nil {
						t.Fatalf("help %s: %q failed on a fresh session after the lines before it:\n%v", c.name, l.Text, err)
					}
					if peer != nil {
						if err := <-peer; err != nil {
							t.Fatalf("help %s: %q: the peer failed: %v", c.name, l.Text, err)
						}
					}
					t.Logf("> %s\n%s", l.Text, res.Text)
				}
			}
		})
	}
}

// startPeer plays the other host of a listen or dial example: a session
// of its own that dials the listener or listens for the dialer, on the
// example's port. It returns nil for other commands.
func startPeer(t *testing.T, line string) <-chan error {
	toks, err := tokenize(line, false)
	if err != nil || len(toks) < 2 {
		return nil
	}
	port := strconv.Itoa(oob.DefaultPort)
	var cmd string
	switch toks[0].text {
	case "listen":
		for _, tk := range toks[2:] {
			if p, ok := strings.CutPrefix(tk.text, "port="); ok {
				port = p
			}
		}
		cmd = "dial qp1 127.0.0.1:" + port
	case "dial":
		if _, p, err := net.SplitHostPort(toks[2].text); err == nil {
			port = p
		}
		cmd = "listen qp1 port=" + port
	default:
		return nil
	}
	done := make(chan error, 1)
	go func() {
		p := New(Options{Device: os.Getenv("LAB_DEV")})
		defer p.Close()
		for _, l := range []string{"open", "pd", "cq", "qp", cmd} {
			if _, err := p.Exec(context.Background(), l); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	return done
}
