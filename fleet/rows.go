package fleet

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"sync"

	"github.com/prometheus/common/model"

	"github.com/verbscope/verbscope/rdma"
)

// Host is one row of the fleet: one target of the job, an exporter.
type Host struct {
	Instance string `json:"instance"`
	// Up is Prometheus's own up series for the target: the last scrape
	// worked.
	Up        bool           `json:"up"`
	Devices   int            `json:"devices"`
	PortsUp   int            `json:"ports_up"`   // ports in ACTIVE
	PortsDown int            `json:"ports_down"` // ports in any other state
	QPs       map[string]int `json:"qps"`        // by state (rdma.QPState's names), every state present
	// Failed counts the QPs in ERR or SQE; Stuck the stuck ones.
	Failed int `json:"failed"`
	Stuck  int `json:"stuck"`
	// ToErr is how many QPs moved to ERR since the exporter started.
	ToErr int `json:"to_err"`
	// ErrorRate is the sum of the error counters' rates over 5 minutes,
	// per second.
	ErrorRate float64 `json:"error_rate"`
	// Alerts are the names of the alerts firing for the host; Pending
	// those about to.
	Alerts  []string `json:"alerts"`
	Pending []string `json:"pending"`
	// Failing are the exporter's collectors that fail.
	Failing []string `json:"collectors_failing"`
}

// errorCounters matches the names of verbscope export's error counters.
const errorCounters = `verbscope_port_(symbol_errors|link_downed|link_error_recovery|receive_errors|receive_remote_physical_errors|receive_switch_relay_errors|receive_constraint_errors|transmit_discards|transmit_constraint_errors|local_link_integrity_errors|excessive_buffer_overrun_errors|vl15_dropped|retry_exceeded_errors|rnr_retry_exceeded_errors|local_ack_timeouts|out_of_sequence|sequence_error_naks_received|implied_nak_sequence_errors)_total`

// errorCounterName matches one whole name errorCounters matches.
// Compiled at first use, not in every verbscope process at start.
var errorCounterName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:` + errorCounters + `)$`) })

// checkErrorCounter refuses a name an answer gave before it goes into a
// query: only a valid metric name (the classic rule, which PromQL takes
// bare: model.LegacyValidation) that is one of the error counters asked
// for. Anything else, from a broken or hostile server, could rewrite the
// query it lands in.
func checkErrorCounter(name string) error {
	if !model.LegacyValidation.IsValidMetricName(name) || !errorCounterName().MatchString(name) {
		return fmt.Errorf("fleet: Prometheus answered %q as the name of an error counter, which is not one of verbscope export's: "+
			"refusing to put it into a query (is --prometheus a Prometheus server?)", name)
	}
	return nil
}

// queries are the PromQL expressions a fleet view asks, by what they fill;
// the error rate then takes one query per error counter the job has
// (errorRateQuery), since rate() drops the names and a vector of several
// counters of one port would hold the same label set twice.
func queries(job string) map[string]string {
	sel := fmt.Sprintf(`{job=%q}`, job)
	return map[string]string{
		"up":         `up` + sel,
		"devices":    `count by (instance) (verbscope_device_info` + sel + `)`,
		"portsUp":    fmt.Sprintf(`count by (instance) (verbscope_port_state%s == %d)`, sel, rdma.PortStateActive),
		"portsDown":  fmt.Sprintf(`count by (instance) (verbscope_port_state%s != %d)`, sel, rdma.PortStateActive),
		"qps":        `sum by (instance, state) (verbscope_qps` + sel + `)`,
		"stuck":      `sum by (instance) (verbscope_qps_stuck` + sel + `)`,
		"toErr":      fmt.Sprintf(`sum by (instance) (verbscope_qp_transitions_total{job=%q,to_state="ERR"})`, job),
		"errorNames": fmt.Sprintf(`count by (__name__) ({__name__=~%q,job=%q})`, errorCounters, job),
		"failing":    `verbscope_collector_success` + sel + ` == 0`,
	}
}

// errorRateQuery is the rate of one error counter per instance.
func errorRateQuery(name, job string) string {
	return fmt.Sprintf(`sum by (instance) (rate(%s{job=%q}[5m]))`, name, job)
}

// Rows asks Prometheus for every host of job and returns them worst
// first: down, then alerts firing, failed QPs, stuck QPs, ports down,
// failing collectors and error rates, then by name.
func Rows(ctx context.Context, c *Client, job string) ([]Host, error) {
	res, err := queryAll(ctx, c, job)
	if err != nil {
		return nil, err
	}
	alerts, err := c.Alerts(ctx)
	if err != nil {
		return nil, err
	}
	hosts := hostsOf(res)
	for _, a := range alerts {
		h := hosts[a.Labels["instance"]]
		if h == nil {
			continue
		}
		switch a.State {
		case "firing":
			h.Alerts = appendOnce(h.Alerts, a.Labels["alertname"])
		case "pending":
			h.Pending = appendOnce(h.Pending, a.Labels["alertname"])
		}
	}
	out := make([]Host, 0, len(hosts))
	for _, h := range hosts {
		for _, st := range rdma.QPStates {
			if st.Failed() {
				h.Failed += h.QPs[st.String()]
			}
		}
		// Empty lists, not null, in the JSON.
		for _, l := range []*[]string{&h.Alerts, &h.Pending, &h.Failing} {
			if *l == nil {
				*l = []string{}
			}
		}
		sort.Strings(h.Alerts)
		sort.Strings(h.Pending)
		sort.Strings(h.Failing)
		out = append(out, *h)
	}
	sortHosts(out)
	return out, nil
}

// queryAll runs every query of job, by its name in queries, and the
// rate of each error counter the exporters serve ("errorRate").
func queryAll(ctx context.Context, c *Client, job string) (map[string][]Sample, error) {
	q := queries(job)
	res := map[string][]Sample{}
	for _, name := range []string{"up", "devices", "portsUp", "portsDown", "qps", "stuck", "toErr", "errorNames", "failing"} {
		s, err := c.Query(ctx, q[name])
		if err != nil {
			return nil, err
		}
		res[name] = s
	}
	var names []string
	for _, s := range res["errorNames"] {
		name := s.Labels["__name__"]
		if err := checkErrorCounter(name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s, err := c.Query(ctx, errorRateQuery(name, job))
		if err != nil {
			return nil, err
		}
		res["errorRate"] = append(res["errorRate"], s...)
	}
	return res, nil
}

// hostsOf makes a Host of each instance up names, filled from the
// queries' samples; samples of other instances are left out.
func hostsOf(res map[string][]Sample) map[string]*Host {
	hosts := map[string]*Host{}
	host := func(s Sample) *Host {
		inst := s.Labels["instance"]
		h := hosts[inst]
		if h == nil {
			h = &Host{Instance: inst, QPs: map[string]int{}}
			for _, st := range rdma.QPStates {
				h.QPs[st.String()] = 0
			}
			hosts[inst] = h
		}
		return h
	}
	n := func(v float64) int { return int(math.Round(v)) }
	for _, s := range res["up"] {
		host(s).Up = s.Value == 1
	}
	for name, fill := range map[string]func(*Host, Sample){
		"devices":   func(h *Host, s Sample) { h.Devices = n(s.Value) },
		"portsUp":   func(h *Host, s Sample) { h.PortsUp = n(s.Value) },
		"portsDown": func(h *Host, s Sample) { h.PortsDown = n(s.Value) },
		"qps":       func(h *Host, s Sample) { h.QPs[s.Labels["state"]] = n(s.Value) },
		"stuck":     func(h *Host, s Sample) { h.Stuck = n(s.Value) },
		"toErr":     func(h *Host, s Sample) { h.ToErr = n(s.Value) },
		"errorRate": func(h *Host, s Sample) { h.ErrorRate += s.Value },
		"failing":   func(h *Host, s Sample) { h.Failing = append(h.Failing, s.Labels["collector"]) },
	} {
		for _, s := range res[name] {
			// Only hosts of the job: up names them all.
			if _, ok := hosts[s.Labels["instance"]]; ok {
				fill(host(s), s)
			}
		}
	}
	return hosts
}

// QPsByState is the host's QPs counted by state, in rdma.QPStates' order,
// the states without a QP left out: "RTS 3", "ERR 1".
func (h *Host) QPsByState() []string {
	var out []string
	for _, st := range rdma.QPStates {
		if n := h.QPs[st.String()]; n > 0 {
			out = append(out, st.String()+" "+strconv.Itoa(n))
		}
	}
	return out
}

// sortHosts puts the worst first.
func sortHosts(hs []Host) { sort.Slice(hs, func(i, j int) bool { return worse(&hs[i], &hs[j]) }) }

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// worse orders hosts worst first.
func worse(a, b *Host) bool {
	ka := []float64{b2f(!a.Up), float64(len(a.Alerts)), float64(a.Failed), float64(a.Stuck), float64(a.PortsDown), float64(len(a.Failing)), a.ErrorRate}
	kb := []float64{b2f(!b.Up), float64(len(b.Alerts)), float64(b.Failed), float64(b.Stuck), float64(b.PortsDown), float64(len(b.Failing)), b.ErrorRate}
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] > kb[i]
		}
	}
	return a.Instance < b.Instance
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
