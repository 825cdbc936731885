//go:build lab

package cli

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/oracle"
	"github.com/verbscope/verbscope/verbs"
)

// In the lab VM, on the live /sys, in the same boot as the oracles.

func labDevinfo(t *testing.T) *oracle.Devinfo {
	t.Helper()
	out, err := exec.Command("ibv_devinfo", "-v").CombinedOutput()
	if err != nil {
		t.Fatalf("ibv_devinfo -v: %v\n%s", err, out)
	}
	di, err := oracle.ParseDevinfo(string(out))
	if err != nil {
		t.Fatal(err)
	}
	return di
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(args...)
	if code != 0 || stderr != "" {
		t.Fatalf("verbscope %v: exit %d\n%s%s", args, code, stdout, stderr)
	}
	return stdout
}

func TestLabDevicesPortsMatchDevinfo(t *testing.T) {
	labkit.Clean(t)
	di := labDevinfo(t)
	n := compareWithDevinfo(t, mustRun(t, "devices", "-j"), mustRun(t, "ports", "-j"), di, true)
	t.Logf("compared %d values with ibv_devinfo -v", n)
}

// gidJSON and irqJSON read the keys of gids -j and irqs -j the tests
// compare.
type gidJSON struct {
	Index       int    `json:"index"`
	GID         string `json:"gid"`
	Addr        string `json:"addr"`
	Type        string `json:"type"`
	Netdev      string `json:"netdev"`
	Recommended bool   `json:"recommended"`
}

type irqJSON struct {
	Soft           bool              `json:"soft"`
	IRQs           []json.RawMessage `json:"irqs"`
	NumCompVectors *int              `json:"num_comp_vectors"`
}

func TestLabGIDsMatchSysfsAndVerbs(t *testing.T) {
	labkit.Clean(t)
	dev := os.Getenv("LAB_DEV")
	var rows []gidJSON
	if err := json.Unmarshal([]byte(mustRun(t, "gids", "-j")), &rows); err != nil {
		t.Fatal(err)
	}
	// Oracle 1: the raw files, read by the shell.
	script := `cd /sys/class/infiniband/$LAB_DEV/ports/1 && for f in gids/*; do i=${f#gids/}; g=$(cat $f)
		[ "$g" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
		echo "$i|$g|$(cat gid_attrs/types/$i)|$(cat gid_attrs/ndevs/$i)"; done`
	out, err := exec.Command("sh", "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	fromFiles := strings.Split(strings.TrimSpace(string(out)), "\n")
	var fromView []string
	for _, r := range rows {
		fromView = append(fromView, strings.Join([]string{strconv.Itoa(r.Index), r.GID, r.Type, r.Netdev}, "|"))
	}
	// The shell lists gids/* in name order (0, 1, 10, 100...).
	slices.SortFunc(fromFiles, func(a, b string) int {
		x, _ := strconv.Atoi(strings.Split(a, "|")[0])
		y, _ := strconv.Atoi(strings.Split(b, "|")[0])
		return x - y
	})
	if diff := cmp.Diff(fromFiles, fromView); diff != "" {
		t.Errorf("gids -j vs the sysfs files (-files +view):\n%s", diff)
	}
	// Oracle 2: libibverbs' GID table.
	c, err := verbs.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	table, err := c.GIDTable()
	if err != nil {
		t.Fatal(err)
	}
	var fromVerbs []string
	for _, g := range table {
		netdev := ""
		if ifi, err := net.InterfaceByIndex(g.NetdevIfindex); err == nil {
			netdev = ifi.Name
		}
		fromVerbs = append(fromVerbs, strings.Join([]string{strconv.Itoa(g.Index), g.GID.Raw(), g.GID.String(), g.Type.String(), netdev}, "|"))
	}
	var viewVerbsShape []string
	for _, r := range rows {
		viewVerbsShape = append(viewVerbsShape, strings.Join([]string{strconv.Itoa(r.Index), r.GID, r.Addr, r.Type, r.Netdev}, "|"))
	}
	if diff := cmp.Diff(fromVerbs, viewVerbsShape); diff != "" {
		t.Errorf("gids -j vs ibv_query_gid_table (-verbs +view):\n%s", diff)
	}
	// The recommended index is the one the lab's /init picked for RoCE v2 over IPv4.
	var rec []int
	for _, r := range rows {
		if r.Recommended {
			rec = append(rec, r.Index)
		}
	}
	if want := os.Getenv("LAB_GID_INDEX"); len(rec) != 1 || strconv.Itoa(rec[0]) != want {
		t.Errorf("recommended GID indexes %v, $LAB_GID_INDEX is %s", rec, want)
	}
	if len(rows) < 2 {
		t.Errorf("only %d GIDs; rxe0 has the link-local and the IPv4 one", len(rows))
	}
}

func TestLabIRQsView(t *testing.T) {
	labkit.Clean(t)
	var out []irqJSON
	if err := json.Unmarshal([]byte(mustRun(t, "irqs", "-j")), &out); err != nil {
		t.Fatal(err)
	}
	di := labDevinfo(t)
	if len(out) != 1 || !out[0].Soft || len(out[0].IRQs) != 0 || out[0].NumCompVectors == nil {
		t.Fatalf("irqs -j: %+v", out)
	}
	if got, want := strconv.Itoa(*out[0].NumCompVectors), di.Devices[0].Fields["num_comp_vectors"]; got != want {
		t.Errorf("num_comp_vectors %s, ibv_devinfo says %s", got, want)
	}
	text := mustRun(t, "irqs")
	if !strings.Contains(text, "no IRQs: software device on veth0") {
		t.Errorf("irqs text:\n%s", text)
	}
	t.Logf("%s", text)
}
