package diagnose

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/verbscope/verbscope/fleet"
	"github.com/verbscope/verbscope/inspect"
)

// exporterPort is verbscope export's port, where a peer host's exporter
// is asked when only its address is known.
const exporterPort = 9879

// defaultPeerTimeout bounds one question to a peer's exporter: a peer
// that does not answer in time is a fact of the verdict, and the reading
// goes on.
const defaultPeerTimeout = 2 * time.Second

// PeerConfig says which exporters to ask of the other ends, and how: the
// --peers, --prometheus, --peer-auth and --peer-ca flags of dash,
// diagnose, export and record.
type PeerConfig struct {
	// URLs are exporters to ask ("http://10.0.1.2:9879"); a QP whose
	// destination GID names one of their hosts asks that one.
	URLs []string
	// Prometheus is a Prometheus server whose targets of verbscope's
	// exporters (verbscope_build_info's instances) are the fleet's
	// hosts.
	Prometheus string
	// AuthFile holds "user:password" on one line, for exporters behind
	// basic auth (and the PSNs and remote QP numbers they serve only to
	// clients that authenticate).
	AuthFile string
	// CAFile verifies https exporters instead of the system's CAs.
	CAFile string
	// Timeout bounds each question (default 2 s).
	Timeout time.Duration
}

// ParsePeerURLs reads --peers: exporters' URLs separated by commas; a
// bare host or host:port is http at verbscope export's port, 9879.
func ParsePeerURLs(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "://") {
			if _, _, err := net.SplitHostPort(f); err != nil {
				f = net.JoinHostPort(strings.Trim(f, "[]"), strconv.Itoa(exporterPort))
			}
			f = "http://" + f
		}
		u, err := url.Parse(f)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("diagnose: peer %q: want an exporter's URL such as http://10.0.1.2:%d or https://hostb:%d", f, exporterPort, exporterPort)
		}
		out = append(out, strings.TrimRight(u.String(), "/"))
	}
	return out, nil
}

// HTTPPeers asks peers' exporters (GET /api/v1/qps?gone=1) for the QPs at
// the other end. Each exporter is asked at most once per reading
// (Forget), and only for a QP that needs judging.
type HTTPPeers struct {
	cfg    PeerConfig
	client *http.Client
	user   string
	pass   string

	mu    sync.Mutex
	cache map[string]*peerRead
	fleet []string
	// fleetRead says the Prometheus targets were read this reading.
	fleetRead bool
	fleetErr  error
}

type peerRead struct {
	once sync.Once
	qps  []PeerQP
	err  error
}

// NewHTTPPeers checks cfg and reads its files: a wrong path fails now,
// not at the first stuck QP.
func NewHTTPPeers(cfg PeerConfig) (*HTTPPeers, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultPeerTimeout
	}
	p := &HTTPPeers{cfg: cfg, cache: map[string]*peerRead{}}
	if cfg.AuthFile != "" {
		b, err := os.ReadFile(cfg.AuthFile)
		if err != nil {
			return nil, fmt.Errorf("diagnose: --peer-auth: %w", err)
		}
		line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
		user, pass, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || user == "" {
			return nil, fmt.Errorf("diagnose: --peer-auth %s: want one line user:password", cfg.AuthFile)
		}
		p.user, p.pass = user, pass
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("diagnose: --peer-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("diagnose: --peer-ca %s: no PEM certificate in it", cfg.CAFile)
		}
		tc.RootCAs = pool
	}
	p.client = &http.Client{Timeout: cfg.Timeout, Transport: &http.Transport{TLSClientConfig: tc, Proxy: http.ProxyFromEnvironment}}
	return p, nil
}

// Forget drops the last reading's answers.
func (p *HTTPPeers) Forget() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.cache)
	p.fleetRead = false
}

// Find asks for q's peer: the exporter of the host its destination GID
// names (RoCE v2: the GID's IPv4 address, at the URL of --peers with that
// host, else http://IP:9879), else every exporter of --peers and the
// fleet, by QP numbers.
func (p *HTTPPeers) Find(ctx context.Context, q *inspect.QP, dgid string) PeerAnswer {
	var a PeerAnswer
	if u, ok := p.urlOfGID(dgid); ok {
		a.HostKnown = true
		a.Asked = []string{hostOf(u)}
		qps, err := p.read(ctx, u)
		if err != nil {
			a.Failed = []string{hostOf(u) + ": " + err.Error()}
			return a
		}
		a.QP = pick(qps, q, false)
		return a
	}
	urls := p.all(ctx, &a)
	reads := make([][]PeerQP, len(urls))
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() { reads[i], errs[i] = p.read(ctx, u) })
	}
	wg.Wait()
	for i, u := range urls {
		a.Asked = append(a.Asked, hostOf(u))
		if errs[i] != nil {
			a.Failed = append(a.Failed, hostOf(u)+": "+errs[i].Error())
			continue
		}
		if a.QP == nil {
			a.QP = pick(reads[i], q, true)
		}
	}
	a.ByNumbers = a.QP != nil
	return a
}

// pick finds q's peer among a host's QPs: the live QP numbered q's rqpn
// (when byNumbers, one whose rqpn is q's lqpn, else one not connected
// yet: a QP in RESET or INIT has no remote number), else the latest one
// destroyed with that number.
func pick(qps []PeerQP, q *inspect.QP, byNumbers bool) *PeerQP {
	var unconnected, gone *PeerQP
	for i := range qps {
		c := &qps[i]
		if c.LQPN != q.RQPN {
			continue
		}
		switch {
		case c.Gone:
			if gone == nil || c.GoneAt.After(gone.GoneAt) {
				gone = c
			}
		case !byNumbers || c.RQPN == q.LQPN:
			return c
		case c.State == "RESET" || c.State == "INIT":
			unconnected = c
		}
	}
	if unconnected != nil {
		return unconnected
	}
	return gone
}

// urlOfGID is the exporter of the host a RoCE v2 GID names.
func (p *HTTPPeers) urlOfGID(dgid string) (string, bool) {
	ip, err := netip.ParseAddr(dgid)
	if err != nil || !ip.Is4In6() {
		return "", false
	}
	host := ip.Unmap().String()
	for _, u := range p.cfg.URLs {
		if pu, err := url.Parse(u); err == nil && pu.Hostname() == host {
			return u, true
		}
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(exporterPort)), true
}

// all are the exporters of --peers and, once a reading, of the fleet.
func (p *HTTPPeers) all(ctx context.Context, a *PeerAnswer) []string {
	urls := slices.Clone(p.cfg.URLs)
	if p.cfg.Prometheus == "" {
		return urls
	}
	p.mu.Lock()
	if !p.fleetRead {
		p.fleetRead = true
		p.mu.Unlock()
		hosts, err := p.fleetHosts(ctx)
		p.mu.Lock()
		p.fleet, p.fleetErr = hosts, err
	}
	hosts, err := p.fleet, p.fleetErr
	p.mu.Unlock()
	if err != nil {
		a.Failed = append(a.Failed, err.Error())
	}
	for _, h := range hosts {
		if !slices.ContainsFunc(urls, func(u string) bool { return hostOf(u) == hostOf(h) }) {
			urls = append(urls, h)
		}
	}
	return urls
}

// fleetHosts asks Prometheus for the instances of verbscope's exporters.
func (p *HTTPPeers) fleetHosts(ctx context.Context) ([]string, error) {
	c := fleet.Client{URL: p.cfg.Prometheus, HTTP: p.client}
	ss, err := c.Query(ctx, "verbscope_build_info")
	if err != nil {
		return nil, fmt.Errorf("the fleet's hosts: %w", err)
	}
	scheme := "http"
	if p.cfg.CAFile != "" {
		scheme = "https"
	}
	var out []string
	for _, s := range ss {
		if in := s.Labels["instance"]; in != "" {
			out = append(out, scheme+"://"+in)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// read asks one exporter for its QPs, once a reading.
func (p *HTTPPeers) read(ctx context.Context, u string) ([]PeerQP, error) {
	p.mu.Lock()
	r := p.cache[u]
	if r == nil {
		r = &peerRead{}
		p.cache[u] = r
	}
	p.mu.Unlock()
	r.once.Do(func() { r.qps, r.err = p.get(ctx, u) })
	return r.qps, r.err
}

func (p *HTTPPeers) get(ctx context.Context, base string) ([]PeerQP, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/qps?gone=1", nil)
	if err != nil {
		return nil, err
	}
	if p.user != "" {
		req.SetBasicAuth(p.user, p.pass)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		hint := ""
		if resp.StatusCode == http.StatusUnauthorized {
			hint = " (give --peer-auth FILE with user:password)"
		}
		return nil, fmt.Errorf("HTTP %d%s: %.120s", resp.StatusCode, hint, strings.TrimSpace(string(body)))
	}
	qps, err := decodePeerQPs(body)
	if err != nil {
		return nil, err
	}
	for i := range qps {
		qps[i].Host = hostOf(base)
	}
	if resp.Header.Get("X-Verbscope-Hidden") != "" && len(qps) > 0 {
		return qps, fmt.Errorf("it hides PSNs and remote QP numbers from clients that do not authenticate: give --peer-auth FILE")
	}
	return qps, nil
}

// decodePeerQPs reads an exporter's /api/v1/qps answer: the keys of
// `verbscope res qp -j` (ifname, lqpn, rqpn, state, sq-psn, rq-psn, pid,
// comm), and gone and gone-at for a QP destroyed lately.
func decodePeerQPs(body []byte) ([]PeerQP, error) {
	var raw []struct {
		Ifname string    `json:"ifname"`
		LQPN   uint32    `json:"lqpn"`
		RQPN   uint32    `json:"rqpn"`
		State  string    `json:"state"`
		SQPSN  uint32    `json:"sq-psn"`
		RQPSN  uint32    `json:"rq-psn"`
		PID    uint32    `json:"pid"`
		Comm   string    `json:"comm"`
		Gone   bool      `json:"gone"`
		GoneAt time.Time `json:"gone-at"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("not verbscope's /api/v1/qps (%.60q): %w", body, err)
	}
	out := make([]PeerQP, len(raw))
	for i, r := range raw {
		out[i] = PeerQP{Dev: r.Ifname, LQPN: r.LQPN, RQPN: r.RQPN, State: r.State, SQPSN: r.SQPSN, RQPSN: r.RQPSN,
			PID: r.PID, Comm: r.Comm, Gone: r.Gone, GoneAt: r.GoneAt}
	}
	return out, nil
}

// hostOf is an exporter's host:port, as verdicts name the peer.
func hostOf(u string) string {
	if pu, err := url.Parse(u); err == nil && pu.Host != "" {
		return pu.Host
	}
	return u
}
