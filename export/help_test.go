package export

import (
	"strings"
	"testing"

	"github.com/verbscope/verbscope/counters"
)

// Every counter metric's HELP is the counter registry's meaning of the
// files it is read from: a file the registry lacks would leave a HELP
// without one.
func TestHelpFromRegistry(t *testing.T) {
	for _, pc := range portCounters() {
		in, ok := counters.Lookup("", pc.file)
		if !ok {
			t.Errorf("counters/%s: not in the counter registry", pc.file)
			continue
		}
		if h := pc.desc.String(); !strings.Contains(strings.ToLower(h), strings.ToLower(strings.Fields(in.Meaning)[0])) {
			t.Errorf("counters/%s: HELP does not come from the registry: %s", pc.file, h)
		}
	}
	hwCounters, hwHelp := hwTables()
	for name, help := range hwHelp {
		for _, part := range strings.Split(help[strings.LastIndex(help, "(")+1:len(help)-2], ", ") {
			drv, file, _ := strings.Cut(part, " hw_counters/")
			if _, ok := counters.Lookup(drv, file); !ok {
				t.Errorf("%s: %s hw_counters/%s is not in the counter registry", name, drv, file)
			}
		}
	}
	// mlx5's rnr_nak_retry_err counts retried RNR NAKs: it must not feed
	// a metric of failed requests.
	if d := hwCounters["rnr_nak_retry_err"]; d == nil || !strings.Contains(d.String(), "rnr_naks_received") {
		t.Errorf("rnr_nak_retry_err exported as %v, want verbscope_port_rnr_naks_received_total", d)
	}
}
