package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client asks one Prometheus server's HTTP API
// (https://prometheus.io/docs/prometheus/latest/querying/api/).
type Client struct {
	// URL is the server's base, "http://prometheus:9090".
	URL string
	// HTTP is the client to use (TLS, timeouts); nil means one with a
	// 30-second timeout.
	HTTP *http.Client
	// Tap, if set, sees every answer's body (to record them for tests).
	Tap func(path string, query url.Values, body []byte)
}

// Sample is one element of an instant vector.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Alert is one entry of /api/v1/alerts.
type Alert struct {
	Labels   map[string]string `json:"labels"`
	State    string            `json:"state"` // "pending" or "firing"
	ActiveAt time.Time         `json:"activeAt"`
	Value    string            `json:"value"`
}

// ErrAPI is an error Prometheus itself reported (a bad query, an
// unavailable server); the message says which.
var ErrAPI = errors.New("prometheus API error")

// envelope is every API answer's frame.
type envelope struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
}

func (c *Client) get(ctx context.Context, path string, q url.Values) (json.RawMessage, error) {
	base, err := url.Parse(strings.TrimRight(c.URL, "/"))
	if err != nil {
		return nil, badURL(c.URL, err)
	}
	u := base.JoinPath(path)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fleet: %s: %w", path, unwrapURL(err))
	}
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fleet: ask Prometheus at %s: %w (is --prometheus right, and is it up?)", base.Redacted(), unwrapURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("fleet: read %s: %w", path, err)
	}
	if c.Tap != nil {
		c.Tap(path, q, body)
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("fleet: %s answered HTTP %d, not the Prometheus API (%.80q): %w", u.Redacted(), resp.StatusCode, body, err)
	}
	if env.Status != "success" {
		return nil, fmt.Errorf("fleet: %s %s: %s: %s: %w", path, q.Get("query"), env.ErrorType, env.Error, ErrAPI)
	}
	return env.Data, nil
}

// Query evaluates expr now and returns the instant vector it gives.
func (c *Client) Query(ctx context.Context, expr string) ([]Sample, error) {
	data, err := c.get(ctx, "/api/v1/query", url.Values{"query": {expr}})
	if err != nil {
		return nil, err
	}
	return decodeVector(expr, data)
}

func decodeVector(expr string, data json.RawMessage) ([]Sample, error) {
	var d struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("fleet: query %s: %w", expr, err)
	}
	if d.ResultType != "vector" {
		return nil, fmt.Errorf("fleet: query %s: a %s, not an instant vector", expr, d.ResultType)
	}
	out := make([]Sample, 0, len(d.Result))
	for _, r := range d.Result {
		s, ok := r.Value[1].(string)
		if !ok {
			return nil, fmt.Errorf("fleet: query %s: value %v is not a string", expr, r.Value[1])
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("fleet: query %s: value %q: %w", expr, s, err)
		}
		out = append(out, Sample{Labels: r.Metric, Value: v})
	}
	return out, nil
}

// Alerts returns the alerts Prometheus evaluates now, pending and firing.
func (c *Client) Alerts(ctx context.Context) ([]Alert, error) {
	data, err := c.get(ctx, "/api/v1/alerts", nil)
	if err != nil {
		return nil, err
	}
	var d struct {
		Alerts []Alert `json:"alerts"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("fleet: alerts: %w", err)
	}
	return d.Alerts, nil
}
