package lab

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestModuleName(t *testing.T) {
	for in, want := range map[string]string{
		"crc32-pclmul.ko":                   "crc32_pclmul",
		"/x/y/rdma_rxe.ko":                  "rdma_rxe",
		"9pnet_virtio.ko.xz":                "9pnet_virtio",
		"ib_core":                           "ib_core",
		"kernel/net/9p/9pnet-virtio.ko.zst": "9pnet_virtio",
	} {
		if got := moduleName(in); got != want {
			t.Errorf("ModuleName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseModinfo(t *testing.T) {
	sec := []byte("license=GPL\x00depends=ib_uverbs,ib_core,udp_tunnel,ip6_udp_tunnel\x00retpoline=Y\x00name=rdma_rxe\x00")
	want := []string{"ib_uverbs", "ib_core", "udp_tunnel", "ip6_udp_tunnel"}
	if diff := cmp.Diff(want, parseModinfo(sec)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := parseModinfo([]byte("depends=\x00name=veth\x00")); len(got) != 0 {
		t.Errorf("empty depends: got %v", got)
	}
}

// The dependency graph of the real guest modules (Debian 6.1), as their
// .modinfo declares it.
var realDeps = map[string][]string{
	"crc32_generic":         nil,
	"rdma_rxe":              {"ib_uverbs", "ib_core", "udp_tunnel", "ip6_udp_tunnel"},
	"ib_uverbs":             {"ib_core"},
	"ib_core":               nil,
	"udp_tunnel":            nil,
	"ip6_udp_tunnel":        nil,
	"ib_umad":               {"ib_core"},
	"rdma_ucm":              {"ib_uverbs", "rdma_cm", "ib_core"},
	"rdma_cm":               {"ib_cm", "iw_cm", "ib_core", "configfs"},
	"ib_cm":                 {"ib_core"},
	"iw_cm":                 {"ib_core"},
	"configfs":              nil,
	"veth":                  nil,
	"virtio_pci":            {"virtio_pci_modern_dev", "virtio_pci_legacy_dev", "virtio", "virtio_ring"},
	"virtio_pci_modern_dev": nil,
	"virtio_pci_legacy_dev": nil,
	"virtio":                nil,
	"virtio_ring":           nil,
	"virtio_net":            {"net_failover", "virtio", "virtio_ring"},
	"net_failover":          {"failover"},
	"failover":              nil,
	"9pnet_virtio":          {"9pnet", "virtio", "virtio_ring"},
	"9pnet":                 {"fscache"},
	"fscache":               {"netfs"},
	"netfs":                 nil,
	"9p":                    {"9pnet", "netfs", "fscache"},
}

func depsFrom(g map[string][]string) func(string) ([]string, error) {
	return func(n string) ([]string, error) {
		d, ok := g[n]
		if !ok {
			return nil, fmt.Errorf("no module %s", n)
		}
		return d, nil
	}
}

func TestLoadOrderDependenciesFirst(t *testing.T) {
	order, err := loadOrder(guestModules, depsFrom(realDeps))
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, m := range order {
		if _, dup := pos[m]; dup {
			t.Errorf("%s loaded twice", m)
		}
		pos[m] = i
	}
	if len(order) != len(realDeps) {
		t.Errorf("got %d modules, want all %d: %v", len(order), len(realDeps), order)
	}
	for m, deps := range realDeps {
		for _, d := range deps {
			if pos[d] > pos[m] {
				t.Errorf("%s (at %d) loads before its dependency %s (at %d)", m, pos[m], d, pos[d])
			}
		}
	}
	// The recipe's gotcha: virtio_ring must precede virtio's users.
	if pos["virtio_ring"] > pos["virtio_pci"] {
		t.Error("virtio_ring after virtio_pci")
	}
	if order[0] != "crc32_generic" {
		t.Errorf("first module %s, want crc32_generic (named first and has no dependencies)", order[0])
	}
}

func TestLoadOrderErrors(t *testing.T) {
	_, err := loadOrder([]string{"a"}, depsFrom(map[string][]string{"a": {"b"}, "b": {"a"}}))
	if err == nil {
		t.Error("cycle: no error")
	}
	missing := errors.New("missing")
	_, err = loadOrder([]string{"a"}, func(string) ([]string, error) { return nil, missing })
	if !errors.Is(err, missing) {
		t.Errorf("missing module: got %v", err)
	}
}

func FuzzParseModinfo(f *testing.F) {
	f.Add([]byte("depends=a,b\x00name=c\x00"))
	f.Add([]byte("depends=,,\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, d := range parseModinfo(b) {
			if d == "" {
				t.Fatal("empty dependency name")
			}
		}
	})
}
