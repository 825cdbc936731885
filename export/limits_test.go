package export

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// shortLimits makes the server's timeouts short for one test.
func shortLimits(t *testing.T, l serverLimits) {
	old := limits
	limits = l
	t.Cleanup(func() { limits = old })
}

// closedWithin reports whether the server closes conn within d: a read
// that ends (EOF or reset) rather than times out.
func closedWithin(conn net.Conn, r io.Reader, d time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestServerTimeouts: with the timeouts shortened to 200 ms, a client
// that trickles its headers, and a keep-alive connection left idle, are
// closed by the server (each within 10 s: 50 times the timeout, for a
// loaded machine under -race).
func TestServerTimeouts(t *testing.T) {
	shortLimits(t, serverLimits{readHeader: 200 * time.Millisecond, read: 300 * time.Millisecond, write: time.Second, idle: 200 * time.Millisecond})
	addr := serve(t, errCollector(t), APIOptions{})

	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	io.WriteString(slow, "GET /metrics HTTP/1.1\r\nHost: x\r\n") // and never the end of the headers
	if !closedWithin(slow, slow, 10*time.Second) {
		t.Error("a client that never finished its headers is still connected")
	}

	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	io.WriteString(idle, "GET /api/v1/qps HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(idle)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("status %d, close %v: want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	if !closedWithin(idle, br, 10*time.Second) {
		t.Error("an idle keep-alive connection is still open")
	}
}

// smallSendBuffers makes every accepted connection's send buffer as
// small as the kernel allows, so that a client that does not read blocks
// the server's write after a few KB instead of the megabytes loopback
// buffers take.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(1)
	}
	return c, err
}

// countingReader counts what passes through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// TestWriteTimeoutFreesStalledClients: clients that ask for a large
// /api/v1/qps and never read, as many as the server serves at once,
// hold its writes until the write timeout: then the server gives up on
// each (the client, reading at last, gets part of the answer and the
// connection's end) and a reading client is served again, its slot
// freed.
//
// The timeout is shortened, but to three times what a reading client's
// whole answer took on this machine just before (at least 500 ms): a
// fixed 500 ms was shorter than serving a reading client through the
// smallest send buffers under -race on a loaded machine, and the server
// cut that client too (make test's unit step: "Get ...: EOF").
func TestWriteTimeoutFreesStalledClients(t *testing.T) {
	coll := feed(Options{}, manyQPs(t, 2000))
	getFrom := func(url string) (int, int) {
		resp, err := http.Get(url + "/api/v1/qps")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, len(b)
	}
	// A reading client's whole answer through the smallest buffers,
	// timed, from a server without the limits (httptest's).
	h, err := Handler(coll, APIOptions{})
	if err != nil {
		t.Fatal(err)
	}
	timed := httptest.NewUnstartedServer(h)
	timed.Listener = smallSendBuffers{timed.Listener}
	timed.Start()
	start := time.Now()
	code, full := getFrom(timed.URL)
	write := max(500*time.Millisecond, 3*time.Since(start))
	timed.Close()
	if code != http.StatusOK || full < 100<<10 {
		t.Fatalf("a reading client: %d, %d bytes; want 200 and over 100 KB", code, full)
	}

	shortLimits(t, serverLimits{readHeader: 10 * time.Second, read: 10 * time.Second, write: write, idle: 10 * time.Second})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := serveOn(t, smallSendBuffers{l}, coll, APIOptions{})
	get := func() (int, int) { return getFrom("http://" + addr) }

	// Small receive buffers too: the answer stops at once.
	dialer := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 1) })
	}}
	stalled := make([]net.Conn, maxInFlight)
	for i := range stalled {
		c, err := dialer.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /api/v1/qps HTTP/1.1\r\nHost: x\r\n\r\n")
		stalled[i] = c
	}
	// The server's writes end at the timeout after each request was
	// read; these clients read nothing for twice that.
	time.Sleep(2 * write)
	for i, c := range stalled {
		r := &countingReader{r: c}
		if !closedWithin(c, r, 10*time.Second+write) {
			t.Errorf("stalled client %d: the connection is still open", i)
		}
		if r.n >= full {
			t.Errorf("stalled client %d got all %d bytes: the write was not cut", i, r.n)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, n := get()
		if code == http.StatusOK && n == full {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the stalled clients were cut: %d, %d bytes; want 200 and %d", code, n, full)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLimitInFlight: past n requests at once, the next gets 503 at once,
// and a slot frees when a request ends.
func TestLimitInFlight(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	h := limitInFlight(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started.Done()
		<-release
	}), 2)
	var done sync.WaitGroup
	for range 2 {
		started.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
		}()
	}
	started.Wait()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "2 requests are served already") {
		t.Errorf("a third request: %d %q, want 503", rec.Code, rec.Body)
	}
	close(release)
	done.Wait()
	started.Add(1)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != http.StatusOK {
		t.Errorf("after the first two ended: %d, want 200", rec.Code)
	}
}
