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
