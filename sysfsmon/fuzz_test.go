package sysfsmon

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every parser of sysfs and procfs text has a fuzz target: whatever the
// input, an error or a consistent result, never a panic.

func FuzzParseState(f *testing.F) {
	for _, s := range []string{"4: ACTIVE", "5: LinkUp", "1: CA", ":", "9999999999999999999: X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, name, err := parseState(s)
		if err == nil && (n < 0 || name == "") {
			t.Fatalf("parseState(%q) = %d, %q without error", s, n, name)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"10 Gb/sec (1X FDR10)", "2.5 Gb/sec (1X)", "100 Gb/sec (4X EDR)", "1e400 Gb/sec (1X)", " Gb/sec ()"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := parseRate(s)
		if err == nil && (r.Gbps < 0 || !strings.HasSuffix(r.Width, "X")) {
			t.Fatalf("parseRate(%q) = %+v without error", s, r)
		}
	})
}

func FuzzParseGID(f *testing.F) {
	for _, s := range []string{"fe80:0000:0000:0000:bc8a:ccff:fe52:0a47", "0000:0000:0000:0000:0000:ffff:0a00:0001", ":::::::", "fe80::1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseGID(s)
		if err != nil {
			return
		}
		// A parsed GID prints back as sysfs wrote it (modulo case).
		b := a.As16()
		var groups []string
		for i := 0; i < 16; i += 2 {
			groups = append(groups, fmt.Sprintf("%02x%02x", b[i], b[i+1]))
		}
		if got := strings.Join(groups, ":"); got != strings.ToLower(strings.TrimSpace(s)) {
			t.Fatalf("parseGID(%q) prints back as %q", s, got)
		}
	})
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-3,8", "", "1", "0-65535", "3-1", "0-1,0-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := parseCPUList(s)
		if err != nil {
			return
		}
		if len(cpus) > maxCPUs {
			t.Fatalf("parseCPUList(%q): %d CPUs", s, len(cpus))
		}
		if slices.IsSorted(cpus) && len(slices.Compact(slices.Clone(cpus))) == len(cpus) {
			again, err := parseCPUList(formatCPUList(cpus))
			if err != nil || !slices.Equal(again, cpus) {
				t.Fatalf("parseCPUList(%q) does not round-trip: %v, %v", s, again, err)
			}
		}
	})
}

func FuzzParseCPUMask(f *testing.F) {
	for _, s := range []string{"3", "ff,00000001", "00000000", ",", "ffffffff,ffffffff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := parseCPUMask(s)
		if err == nil && !slices.IsSorted(cpus) {
			t.Fatalf("parseCPUMask(%q) = %v, not sorted", s, cpus)
		}
	})
}

func FuzzParseInterrupts(f *testing.F) {
	for _, p := range []string{"testdata/rxe0/proc/interrupts", "testdata/mlx5/proc/interrupts"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("CPU0 CPU1 CPU2 CPU3\n  5:   1   2\n")
	f.Add("CPU0\n:\n")
	f.Fuzz(func(t *testing.T, s string) {
		in, err := parseInterrupts(s)
		if len(in.CPUs) == 0 && err == nil {
			t.Fatal("no CPUs and no error")
		}
		for _, l := range in.Lines {
			if len(l.Counts) == 0 || len(l.Counts) > len(in.CPUs) {
				t.Fatalf("row %+v has %d counts for %d CPUs", l, len(l.Counts), len(in.CPUs))
			}
		}
	})
}

func FuzzParseModules(f *testing.F) {
	b, err := os.ReadFile("testdata/rxe0/proc/modules")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("a 1 - - Live 0x0\nb")
	f.Fuzz(func(t *testing.T, s string) {
		mods, _ := parseModules(s)
		for _, m := range mods {
			if m.Name == "" || m.Refs < -1 {
				t.Fatalf("module %+v", m)
			}
		}
	})
}

func FuzzParseMemlock(f *testing.F) {
	b, err := os.ReadFile("testdata/rxe0/proc/self/limits")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("Max locked memory unlimited unlimited bytes")
	f.Fuzz(func(t *testing.T, s string) {
		soft, hard, err := parseMemlock(s)
		if err != nil && (soft != Limit{} || hard != Limit{}) {
			t.Fatalf("parseMemlock(%q) = %v, %v with error %v", s, soft, hard, err)
		}
	})
}

func FuzzParseDpkgAndLibName(f *testing.F) {
	f.Add("Package: rdma-core\nStatus: install ok installed\nVersion: 44.0-2\n", "libibverbs.so.1.14.44.0")
	f.Fuzz(func(t *testing.T, status, name string) {
		parseDpkgVersion(status, "rdma-core")
		if v := parseLibibverbsName(name); v != "" && !strings.HasSuffix(name, v) {
			t.Fatalf("parseLibibverbsName(%q) = %q", name, v)
		}
	})
}

func FuzzParseStatusCred(f *testing.F) {
	for _, p := range []string{"testdata/rxe0/proc/self/status", "testdata/mlx5/proc/self/status"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("Uid:\t1\t2\t3\t4\nGid:\t5\t6\t7\t8\nGroups:\t\nCapEff:\tz\n")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := parseStatusCred(s)
		if err != nil && (c.UID != 0 || c.GID != 0 || c.Groups != nil || c.CapEff != 0) {
			t.Fatalf("parseStatusCred(%q) = %+v with error %v", s, c, err)
		}
		if err == nil && (c.UID < 0 || c.GID < 0 || slices.ContainsFunc(c.Groups, func(g int) bool { return g < 0 })) {
			t.Fatalf("parseStatusCred(%q) = %+v", s, c)
		}
	})
}

func FuzzParseStatusKB(f *testing.F) {
	for _, s := range []string{"VmPin:\t     128 kB\n", "MemTotal:        4022388 kB\n", "VmPin:\t18014398509481983 kB", "VmPin: 1 MB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, key := range []string{"VmPin", "MemTotal"} {
			if n, err := parseStatusKB(s, key); err != nil && n != 0 || n%1024 != 0 {
				t.Fatalf("parseStatusKB(%q, %s) = %d, %v", s, key, n, err)
			}
		}
	})
}

func FuzzParseStatStart(f *testing.F) {
	f.Add(statLine(812, "ib_write_bw", 4242))
	f.Add(statLine(812, ") x (", 7))
	f.Add("1 ((((")
	f.Fuzz(func(t *testing.T, s string) {
		comm, start, err := parseStatStart(s)
		if err != nil && (comm != "" || start != 0) || err == nil && !strings.Contains(s, "("+comm+")") {
			t.Fatalf("parseStatStart(%q) = %q, %d, %v", s, comm, start, err)
		}
	})
}

func FuzzParseDriverConf(f *testing.F) {
	f.Add("driver rxe\n", "librxe-rdmav34.so")
	f.Add("# comment\n\ndriver  mlx5 \ndriverx\n", "libmlx5-rdmav.so")
	f.Fuzz(func(t *testing.T, conf, lib string) {
		drivers, _ := parseDriverConf(conf)
		for _, d := range drivers {
			if d == "" || strings.ContainsAny(d, "/ \t\n\x00") {
				t.Fatalf("parseDriverConf(%q): driver %q", conf, d)
			}
		}
		if p := parseProviderName(lib); p != "" && !strings.HasPrefix(lib, "lib"+p+"-rdmav") {
			t.Fatalf("parseProviderName(%q) = %q", lib, p)
		}
	})
}

func FuzzParseCgroup(f *testing.F) {
	for _, s := range []string{
		"0::/system.slice/x.service\n",
		"1:name=systemd:/docker/3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899\n",
		"0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0f6a9c1e_2b3d_4e5f_8a9b_0c1d2e3f4a5b.slice/cri-containerd-3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899.scope\n",
		"0::/kubepods/pod0f6a9c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b/3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899\n",
		"0::/machine.slice/libpod-3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899.scope/container\n",
		"0::/user.slice/user-1000.slice/user@1000.service/app.slice/docker-3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899.scope\n",
		"0::/system.slice/x.service/docker-3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899.scope\n",
		"::", "0::/\n", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseProcCgroup(s)
		if err != nil {
			return
		}
		if !strings.HasPrefix(p, "/") {
			t.Fatalf("parseProcCgroup(%q) = %q, not absolute", s, p)
		}
		c := ParseCgroupPath(p)
		// Whatever it names is a component of the path, in its form.
		if c.Path != p || (c.Unit != "" && !strings.Contains(p, c.Unit)) || (c.Slice != "" && !strings.Contains(p, c.Slice)) ||
			(c.ContainerID != "" && (!isContainerID(c.ContainerID) || !strings.Contains(p, c.ContainerID))) ||
			(c.PodUID != "" && !isUUID(c.PodUID)) || (c.Runtime != "" && c.ContainerID == "") ||
			(c.UserManager != "" && !strings.HasPrefix(p, "/user.slice/") || c.UserManager != "" && !strings.Contains(p, "/"+c.UserManager)) {
			t.Fatalf("ParseCgroupPath(%q) = %+v", p, c)
		}
	})
}

func FuzzParseKmsg(f *testing.F) {
	for _, s := range []string{"6,1203,18437201,-;rdma_rxe: loaded\n", "4,7,5,c;infiniband rxe0: x\n DEVICE=+infiniband:rxe0\n", "1,2,3;", ",,;", "6,1,99999999999999999,-;x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parseKmsg(s)
		if err == nil && (l.Level < 0 || l.Level > 7 || l.Since < 0 || (l.Driver != "" && l.Driver != rdmaDriver(l.Text))) {
			t.Fatalf("parseKmsg(%q) = %+v", s, l)
		}
	})
}

// FuzzParseCounterValue: a counter file's text is a number (the same
// number printed back) or unavailable with 0, never anything else.
func FuzzParseCounterValue(f *testing.F) {
	for _, s := range []string{"0\n", "18446744073709551615\n", "N/A (no PMA)\n", "", "-1", " 42 ", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, na := parseCounterValue(s)
		if na {
			if v != 0 {
				t.Fatalf("%q: unavailable with value %d", s, v)
			}
			return
		}
		if strconv.FormatUint(v, 10) != strings.TrimLeft(strings.TrimSpace(s), "+0") && v != 0 {
			t.Fatalf("%q read as %d", s, v)
		}
	})
}
