package counters

import "sync"

// entry is one counter of one driver ("" for the IBTA PortCounters every
// IB driver answers for under ports/N/counters/).
type entry struct {
	driver string
	Info
}

// table is the registry: a seed of rxe's and mlx5's retry counters, to
// grow to every driver's (see doc.go).
var table = []entry{
	// rxe: drivers/infiniband/sw/rxe/rxe_hw_counters.c
	{"rxe", Info{Name: "rcvd_rnr_err", Meaning: "RNR NAKs received: the peer had no receive posted; the send is retried",
		Class: ClassRetry, Side: SideRequester, Signal: SignalRNR, Source: "drivers/infiniband/sw/rxe/rxe_comp.c"}},
	{"rxe", Info{Name: "completer_retry_err", Meaning: "transport timeouts: a request got no ACK in time and is resent",
		Class: ClassRetry, Side: SideRequester, Signal: SignalTimeoutRetry, Source: "drivers/infiniband/sw/rxe/rxe_comp.c"}},
	{"rxe", Info{Name: "retry_exceeded_err", Meaning: "requests failed after retry_cnt transport timeouts",
		Class: ClassError, Side: SideRequester, Terminal: true, Signal: SignalRetryExceeded, Source: "drivers/infiniband/sw/rxe/rxe_comp.c"}},
	{"rxe", Info{Name: "retry_rnr_exceeded_err", Meaning: "requests failed after rnr_retry RNR NAKs",
		Class: ClassError, Side: SideRequester, Terminal: true, Signal: SignalRNRExceeded, Source: "drivers/infiniband/sw/rxe/rxe_comp.c"}},
	// mlx5: drivers/infiniband/hw/mlx5/counters.c (q counters are 32-bit)
	{"mlx5", Info{Name: "rnr_nak_retry_err", Meaning: "RNR NAKs received: the peer had no receive posted; the send is retried",
		Class: ClassRetry, Side: SideRequester, Bits: 32, Signal: SignalRNR, Source: "drivers/infiniband/hw/mlx5/counters.c"}},
	{"mlx5", Info{Name: "local_ack_timeout_err", Meaning: "transport timeouts: a request got no ACK in time and is resent",
		Class: ClassRetry, Side: SideRequester, Bits: 32, Signal: SignalTimeoutRetry, Source: "drivers/infiniband/hw/mlx5/counters.c"}},
}

var (
	indexOnce sync.Once
	byDriver  map[string]map[string]Info
	byName    map[string][]Info
)

func index() {
	byDriver = map[string]map[string]Info{}
	byName = map[string][]Info{}
	for _, e := range table {
		if byDriver[e.driver] == nil {
			byDriver[e.driver] = map[string]Info{}
		}
		byDriver[e.driver][e.Name] = e.Info
		byName[e.Name] = append(byName[e.Name], e.Info)
	}
}

func lookup(driver, name string) (Info, bool) {
	indexOnce.Do(index)
	if driver != "" {
		if in, ok := byDriver[driver][name]; ok {
			return in, true
		}
		in, ok := byDriver[""][name]
		return in, ok
	}
	all := byName[name]
	if len(all) == 0 {
		return Info{}, false
	}
	for _, in := range all[1:] {
		if in.Class != all[0].Class || in.Signal != all[0].Signal || in.Terminal != all[0].Terminal || in.Side != all[0].Side {
			return Info{}, false
		}
	}
	return all[0], true
}
