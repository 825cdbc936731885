//go:build lab

package shell

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

const ppSetup = "open; pd; cq size=16; mr size=8192 access=local_write; qp type=rc cq=cq1 send_wr=1 recv_wr=16; next qp1"

// TestShellIsRCPingpongClient: ibv_rc_pingpong serves, the shell dials it,
// and one 4 KiB message goes each way.
func TestShellIsRCPingpongClient(t *testing.T) {
	labkit.Clean(t)
	pp := labkit.Start(t, "ibv_rc_pingpong", "-d", labkit.Env(t, "LAB_DEV"), "-g", labkit.Env(t, "LAB_GID_INDEX"), "-n", "1", "-p", "18520")
	labkit.WaitListening(t, "ibv_rc_pingpong", 18520) // a dial before it listens is refused
	s := runSteps(t, []step{
		{cmd: ppSetup + `; post recv qp1 mr1[4096:8192]; write mr1 "PING from verbscope"`},
		{cmd: "dial qp1 " + labkit.Env(t, "LAB_IP") + ":18520", ok: []string{"remote address: LID 0x0000, QPN", "qp1 is now RTS", "qp1 is connected"}},
		{cmd: "post send qp1 mr1[0:4096]"},
	})
	pollUntil(t, s, "cq1", "SEND               success", "RECV               success, 4096 bytes")
	pp.Wait(t, labkit.Run)
	out := pp.Output()
	if !strings.Contains(out, "1 iters in") {
		t.Errorf("ibv_rc_pingpong did not complete its iteration:\n%s", out)
	}
	qpn := execOK(t, s, "query qp1")
	if !strings.Contains(out, "remote address: LID 0x0000, QPN 0x"+hexQPN(qpn)) {
		t.Errorf("ibv_rc_pingpong does not name our QP as its peer:\n%s\nour QP:\n%s", out, qpn)
	}
}

// TestShellIsRCPingpongServer: the shell listens on the lab's address
// (addr=), ibv_rc_pingpong dials. Before it, two strays connect: one
// sends garbage, one nothing and stays; the listen keeps waiting for the
// real peer, and nothing listens on the loopback address.
func TestShellIsRCPingpongServer(t *testing.T) {
	labkit.Clean(t)
	ip := labkit.Env(t, "LAB_IP")
	strays := make(chan error, 1)
	go func() { strays <- sendStrays(ip + ":18521") }()
	// The client starts after the strays and retries until the shell
	// listens; a refused connect has no side effect on the server.
	pp := labkit.Start(t, "sh", "-c", fmt.Sprintf("sleep 2; for i in $(seq 100); do ibv_rc_pingpong -d %s -g %s -n 1 -p 18521 %s && exit 0; sleep 0.2; done; exit 1",
		labkit.Env(t, "LAB_DEV"), labkit.Env(t, "LAB_GID_INDEX"), ip))
	s := runSteps(t, []step{
		{cmd: ppSetup + "; post recv qp1 mr1[4096:8192]"},
		{cmd: "listen qp1 port=18521 addr=" + ip + " timeout=60s", ok: []string{"remote address: LID 0x0000", "qp1 is now RTS", "qp1 is connected"}},
	})
	if err := <-strays; err != nil {
		t.Error(err)
	}
	pollUntil(t, s, "cq1", "RECV               success, 4096 bytes")
	execOK(t, s, "post send qp1 mr1[0:4096]")
	pollUntil(t, s, "cq1", "SEND               success")
	pp.Wait(t, labkit.Run)
	if out := pp.Output(); !strings.Contains(out, "1 iters in") {
		t.Errorf("ibv_rc_pingpong did not complete its iteration:\n%s", out)
	}
}

// sendStrays connects to addr as soon as it listens, sends garbage on
// one connection and nothing on another, and keeps the silent one open
// a while; meanwhile the loopback address must refuse (addr= binds one).
func sendStrays(addr string) error {
	var garbage net.Conn
	deadline := time.Now().Add(labkit.Step)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			garbage = c
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the shell never listened on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer garbage.Close()
	garbage.Write([]byte("GET / HTTP/1.0\r\n\r\n" + strings.Repeat("x", 100)))
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		return fmt.Errorf("a second connection: %v", err)
	}
	defer silent.Close()
	_, port, _ := net.SplitHostPort(addr)
	if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
		c.Close()
		return fmt.Errorf("listen addr=%s also accepts on 127.0.0.1", addr)
	}
	time.Sleep(5 * time.Second)
	return nil
}

// pollUntil polls a CQ until completions containing every want have
// shown up (one poll may return several).
func pollUntil(t *testing.T, s *Shell, cq string, want ...string) {
	t.Helper()
	var seen strings.Builder
	for i := 0; i < 20; i++ {
		seen.WriteString(execOK(t, s, "poll "+cq+" wait=1s") + "\n")
		missing := false
		for _, w := range want {
			missing = missing || !strings.Contains(seen.String(), w)
		}
		if !missing {
			return
		}
	}
	t.Fatalf("not all of %q on %s; saw:\n%s", want, cq, seen.String())
}

func execOK(t *testing.T, s *Shell, cmd string) string {
	t.Helper()
	res, err := s.Exec(t.Context(), cmd)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return res.Text
}

// hexQPN pulls qp_num out of `query` output as rc_pingpong prints it
// (six hex digits).
func hexQPN(query string) string {
	for _, l := range strings.Split(query, "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "qp_num" {
			var n int
			fmt.Sscan(f[1], &n)
			return fmt.Sprintf("%06x", n) // as rc_pingpong prints it
		}
	}
	return "??"
}
