package inspect

import (
	"github.com/verbscope/verbscope/rdma"

	"github.com/verbscope/verbscope/view"
)

// Filters in the style of rdma-resource(8): "pid 1234", "state RTS,ERR",
// "lqpn 0-6,17". The valid names per object kind are iproute2's
// (qp_valid_filters and friends in rdma/res.h) plus comm, dev on the
// kinds iproute2 filters by link, and port. view parses and matches them;
// this file declares each kind's words and the values that can exist.

func init() {
	link := []view.Key{
		{Name: "link", Field: "ifname", Match: view.MatchLink},
		{Name: "dev", Field: "ifname", Match: view.MatchDevice},
		{Name: "port", Match: view.MatchNumber},
	}
	dev := []view.Key{{Name: "dev", Field: "ifname", Match: view.MatchDevice}}
	num := func(names ...string) []view.Key {
		keys := make([]view.Key, len(names))
		for i, n := range names {
			keys[i] = view.Key{Name: n, Match: view.MatchNumber}
		}
		return keys
	}
	words := func(name string, values []string) view.Key {
		return view.Key{Name: name, Match: view.MatchWord, Values: values}
	}
	comm := view.Key{Name: "comm"}
	cat := func(parts ...[]view.Key) []view.Key {
		var out []view.Key
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	for _, s := range []view.Schema{
		{Kind: "res", Keys: dev, Bare: "dev"},
		{Kind: "qp", Bare: "link", Keys: cat(link, num("lqpn", "rqpn", "pid", "sq-psn", "rq-psn"), []view.Key{
			words("type", rdma.QPTypeNames()), words("path-mig-state", rdma.MigStateNames()), words("state", rdma.QPStateNames())},
			num("pdn"), []view.Key{comm})},
		{Kind: "cq", Bare: "dev", Keys: cat(dev, num("users"), []view.Key{words("poll-ctx", pollCtxNames[:])},
			num("pid", "cqn", "ctxn"), []view.Key{comm})},
		{Kind: "mr", Bare: "dev", Keys: cat(dev, num("rkey", "lkey", "mrlen", "pid", "mrn", "pdn"), []view.Key{comm})},
		{Kind: "pd", Bare: "dev", Keys: cat(dev, num("users", "pid", "ctxn", "pdn"), []view.Key{comm})},
		{Kind: "ctx", Bare: "dev", Keys: cat(dev, num("pid", "ctxn"), []view.Key{comm})},
		{Kind: "srq", Bare: "dev", Keys: cat(dev, num("pid", "srqn"), []view.Key{words("type", srqTypeNames[:])},
			num("pdn", "cqn", "lqpn"), []view.Key{comm})},
		{Kind: "cm_id", Bare: "link", Keys: cat(link, num("lqpn"), []view.Key{words("qp-type", rdma.QPTypeNames()),
			words("state", cmStateNames[:]), words("ps", []string{"TCP", "UDP", "IPoIB"})}, num("pid"),
			[]view.Key{{Name: "src-addr"}}, num("src-port"), []view.Key{{Name: "dst-addr"}}, num("dst-port", "cm-idn"),
			[]view.Key{comm})},
	} {
		view.Register(s)
	}
}

// Filters is a conjunction of filters (view.Filters).
type Filters = view.Filters

// CheckFilters refuses (view.AbsentError) a device the filters name
// that the kernel does not know (RDMA_NLDEV_CMD_GET), and a port
// (DEV/PORT) its device does not have.
func (c *Conn) CheckFilters(flt Filters) error {
	if len(flt.Devices()) == 0 {
		return nil
	}
	devs, err := c.Devices()
	if err != nil {
		return err
	}
	names := make([]string, len(devs))
	ports := map[string][]uint32{}
	for i, d := range devs {
		names[i] = d.Name
		ports[d.Name] = []uint32{}
		for p := uint32(1); p <= d.Ports; p++ {
			ports[d.Name] = append(ports[d.Name], p)
		}
	}
	if err := flt.CheckDevices(names); err != nil {
		return err
	}
	return flt.CheckPorts(ports)
}
