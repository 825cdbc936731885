package fleet

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// Answer is one answer of Prometheus's HTTP API as a Client's Tap saw it:
// the request's path and query expression and the body that came back.
// The lab's pair test records them from Debian's real Prometheus; the
// unit tests of fleet and of the dashboard's fleet view replay them.
type Answer struct {
	Path  string          `json:"path"`
	Query string          `json:"query,omitempty"`
	Body  json.RawMessage `json:"body"`
}

// Replay is an http.RoundTripper that answers each request with the
// recorded body for its path and query, and 404 for anything never
// recorded, so a replayed Client cannot silently ask what the real
// server was not asked.
type Replay []Answer

// RoundTrip implements http.RoundTripper.
func (r Replay) RoundTrip(req *http.Request) (*http.Response, error) {
	resp := &http.Response{Request: req, Header: http.Header{}, StatusCode: http.StatusNotFound,
		Body: io.NopCloser(bytes.NewReader([]byte("not recorded: " + req.URL.Path + " " + req.URL.Query().Get("query"))))}
	for _, a := range r {
		if a.Path == req.URL.Path && a.Query == req.URL.Query().Get("query") {
			resp.StatusCode = http.StatusOK
			resp.Header.Set("Content-Type", "application/json")
			resp.Body = io.NopCloser(bytes.NewReader(a.Body))
			break
		}
	}
	resp.Status = http.StatusText(resp.StatusCode)
	return resp, nil
}
