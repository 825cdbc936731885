package sysfsmon

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/internal/testtree"
)

// Container IDs and pod UIDs of the patterns below (made up, in the
// runtimes' formats).
const (
	testCID = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899"
	testPod = "0f6a9c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
)

func TestParseCgroupPath(t *testing.T) {
	podSlice := "kubepods-besteffort-pod" + strings.ReplaceAll(testPod, "-", "_") + ".slice"
	for _, c := range []struct {
		name string
		path string
		want Cgroup
	}{
		{"root", "/", Cgroup{}},
		{"systemd service", "/system.slice/nginx.service", Cgroup{Unit: "nginx.service", Slice: "system.slice"}},
		{"delegated subgroup of a service", "/system.slice/x.service/worker", Cgroup{Unit: "x.service", Slice: "system.slice"}},
		{"login session", "/user.slice/user-1000.slice/session-3.scope", Cgroup{Unit: "session-3.scope", Slice: "user-1000.slice"}},
		{"docker, systemd driver", "/system.slice/docker-" + testCID + ".scope",
			Cgroup{Unit: "docker-" + testCID + ".scope", Slice: "system.slice", Runtime: "docker", ContainerID: testCID}},
		{"docker, cgroupfs driver", "/docker/" + testCID, Cgroup{Runtime: "docker", ContainerID: testCID}},
		{"containerd namespace, cgroupfs", "/default/" + testCID, Cgroup{Runtime: "containerd", ContainerID: testCID}},
		{"nerdctl, systemd driver", "/system.slice/nerdctl-" + testCID + ".scope",
			Cgroup{Unit: "nerdctl-" + testCID + ".scope", Slice: "system.slice", Runtime: "containerd", ContainerID: testCID}},
		{"kubelet + containerd, systemd driver",
			"/kubepods.slice/kubepods-besteffort.slice/" + podSlice + "/cri-containerd-" + testCID + ".scope",
			Cgroup{Unit: "cri-containerd-" + testCID + ".scope", Slice: podSlice, Runtime: "containerd", ContainerID: testCID, PodUID: testPod}},
		{"kubelet guaranteed pod, systemd driver",
			"/kubepods.slice/kubepods-pod" + strings.ReplaceAll(testPod, "-", "_") + ".slice/cri-containerd-" + testCID + ".scope",
			Cgroup{Unit: "cri-containerd-" + testCID + ".scope", Slice: "kubepods-pod" + strings.ReplaceAll(testPod, "-", "_") + ".slice", Runtime: "containerd", ContainerID: testCID, PodUID: testPod}},
		{"kubelet + cri-o", "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + strings.ReplaceAll(testPod, "-", "_") + ".slice/crio-" + testCID + ".scope",
			Cgroup{Unit: "crio-" + testCID + ".scope", Slice: "kubepods-burstable-pod" + strings.ReplaceAll(testPod, "-", "_") + ".slice", Runtime: "cri-o", ContainerID: testCID, PodUID: testPod}},
		{"cri-o's conmon is no container", "/kubepods.slice/" + podSlice + "/crio-conmon-" + testCID + ".scope",
			Cgroup{Unit: "crio-conmon-" + testCID + ".scope", Slice: podSlice, PodUID: testPod}},
		{"kubelet, cgroupfs driver", "/kubepods/besteffort/pod" + testPod + "/" + testCID, Cgroup{ContainerID: testCID, PodUID: testPod}},
		{"podman, nested container group", "/machine.slice/libpod-" + testCID + ".scope/container",
			Cgroup{Unit: "libpod-" + testCID + ".scope", Slice: "machine.slice", Runtime: "podman", ContainerID: testCID}},
		{"rootless podman", "/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" + testCID + ".scope",
			Cgroup{Unit: "libpod-" + testCID + ".scope", Slice: "user.slice", UserManager: "user@1000.service", Runtime: "podman", ContainerID: testCID}},
		{"a user's unit is the user's", "/user.slice/user-1000.slice/user@1000.service/app.slice/nginx.service",
			Cgroup{Unit: "nginx.service", Slice: "app.slice", UserManager: "user@1000.service"}},
		{"a user's docker scope is the user's", "/user.slice/user-1000.slice/user@1000.service/app.slice/docker-" + testCID + ".scope",
			Cgroup{Unit: "docker-" + testCID + ".scope", Slice: "app.slice", UserManager: "user@1000.service", Runtime: "docker", ContainerID: testCID}},
		// Below a unit lies its delegated subtree, named by whoever the
		// unit delegates to: the names there are nobody's word.
		{"a docker scope in a delegated subtree is no container", "/system.slice/x.service/docker-" + testCID + ".scope",
			Cgroup{Unit: "x.service", Slice: "system.slice"}},
		{"a service in a delegated subtree is no unit", "/system.slice/x.service/app.slice/nginx.service",
			Cgroup{Unit: "x.service", Slice: "system.slice"}},
		{"in a user unit's subtree", "/user.slice/user-1000.slice/user@1000.service/app.slice/x.service/docker-" + testCID + ".scope",
			Cgroup{Unit: "x.service", Slice: "app.slice", UserManager: "user@1000.service"}},
		{"another uid's manager name in a user's slice", "/user.slice/user-1000.slice/user@0.service/system.slice/nginx.service",
			Cgroup{Unit: "user@0.service", Slice: "user-1000.slice"}},
		{"a user manager outside user.slice", "/system.slice/user@1000.service/app.slice/nginx.service",
			Cgroup{Unit: "user@1000.service", Slice: "system.slice"}},
		{"a cgroupfs docker folder not at the top", "/system.slice/x.service/docker/" + testCID, Cgroup{Unit: "x.service", Slice: "system.slice"}},
		{"a kubepods folder not at the top", "/system.slice/x.service/kubepods/besteffort/pod" + testPod + "/" + testCID,
			Cgroup{Unit: "x.service", Slice: "system.slice"}},
		{"a pod slice in a delegated subtree", "/kubepods.slice/x.service/" + podSlice + "/cri-containerd-" + testCID + ".scope",
			Cgroup{Unit: "x.service", Slice: "kubepods.slice"}},
		{"a pod name outside kubepods is not a pod", "/pod" + testPod, Cgroup{}},
		{"short ID is no container", "/docker/3f4e5d6c7b8a", Cgroup{}},
		{"upper-case hex is no container ID", "/docker/" + strings.ToUpper(testCID), Cgroup{}},
		{"anything else keeps the raw path", "/lab/jobs/42", Cgroup{}},
	} {
		c.want.Path = c.path
		if diff := cmp.Diff(c.want, ParseCgroupPath(c.path)); diff != "" {
			t.Errorf("%s: ParseCgroupPath(%q) (-want +got):\n%s", c.name, c.path, diff)
		}
	}
	if got := (Cgroup{ContainerID: testCID}).ShortID(); got != testCID[:12] {
		t.Errorf("ShortID = %q", got)
	}
}

func TestParseProcCgroup(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{in: "0::/system.slice/x.service\n", want: "/system.slice/x.service"},
		// hybrid: v1 hierarchies and the unified one
		{in: "12:cpu,cpuacct:/user.slice\n1:name=systemd:/user.slice/session-2.scope\n0::/user.slice/session-2.scope\n", want: "/user.slice/session-2.scope"},
		// v1 only: systemd's named hierarchy
		{in: "3:memory:/docker/x\n1:name=systemd:/docker/" + testCID + "\n", want: "/docker/" + testCID},
		{in: "0::/\n", want: "/"},
		{in: "", err: "cgroup: no cgroup v2 (0::) or name=systemd line"},
		{in: "3:memory:/a\n", err: "cgroup: no cgroup v2 (0::) or name=systemd line"},
		{in: "0::relative\n", err: `cgroup: "0::relative": want hierarchy-ID:controllers:/path`},
		{in: "garbage\n", err: `cgroup: "garbage": want hierarchy-ID:controllers:/path`},
	} {
		got, err := parseProcCgroup(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("parseProcCgroup(%q) = %q, %v; want error %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parseProcCgroup(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestProcessOwner(t *testing.T) {
	root := t.TempDir()
	proc := filepath.Join(root, "proc")
	write := func(rel, s string) { testtree.Write(t, root, rel, s) }
	write("sys/.keep", "")
	write("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n")
	write("proc/812/status", "Name:\tib_write_bw\nTgid:\t812\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\nVmLck:\t       0 kB\nVmPin:\t      12 kB\n")
	write("proc/812/comm", "ib_write_bw\n")
	write("proc/812/cmdline", "ib_write_bw\x00-d\x00rxe0\x00")
	write("proc/812/cgroup", "0::/system.slice/docker-"+testCID+".scope\n")
	write("proc/812/limits", "Limit                     Soft Limit           Hard Limit           Units\nMax locked memory         8388608              unlimited            bytes\n")
	// A root process whose limits file vanished half-way.
	write("proc/900/status", "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n")
	write("proc/900/cgroup", "not a cgroup file")
	write("proc/meminfo", "MemTotal:        4022388 kB\nMemFree:          123456 kB\n")
	fsys, err := NewFS(filepath.Join(root, "sys"), proc, WithHostRoot(root))
	if err != nil {
		t.Fatal(err)
	}
	got, err := fsys.ProcessOwner(812)
	if err != nil {
		t.Fatal(err)
	}
	want := ProcessOwner{
		TGID: 812, Comm: "ib_write_bw", Cmdline: "ib_write_bw -d rxe0", UID: 1000, User: "alice",
		Cgroup:      ParseCgroupPath("/system.slice/docker-" + testCID + ".scope"),
		MemlockSoft: Limit{Value: 8 << 20}, MemlockHard: Limit{Unlimited: true}, VmPin: 12 << 10,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ProcessOwner(812) (-want +got):\n%s", diff)
	}
	got, err = fsys.ProcessOwner(900)
	if err != nil {
		t.Fatal(err)
	}
	if got.User != "root" || !got.IPCLock || got.Cgroup.Path != "" || len(got.Warnings) != 1 ||
		got.Warnings[0].String() != `/proc/900/cgroup: cgroup: "not a cgroup file": want hierarchy-ID:controllers:/path` {
		t.Errorf("ProcessOwner(900) = %+v", got)
	}
	if _, err := fsys.ProcessOwner(4242); !errors.Is(err, ErrNoProcess) {
		t.Errorf("ProcessOwner(4242): %v, want ErrNoProcess", err)
	}
	if n, err := fsys.MemTotal(); n != 4022388<<10 || err != nil {
		t.Errorf("MemTotal() = %d, %v", n, err)
	}
}

func TestParseStatusKB(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		err  string
	}{
		{in: "Name:\tx\nVmPin:\t     128 kB\nVmRSS:\t 9 kB\n", want: 128 << 10},
		{in: "Name:\tzombie\nState:\tZ (zombie)\n", want: 0}, // no Vm lines
		{in: "VmPin:\t12\n", err: `VmPin: "12": want a number of kB`},
		{in: "VmPin:\tx kB\n", err: `VmPin: "x" is not a number of kB`},
		{in: "VmPin:\t18014398509481984 kB\n", err: `VmPin: "18014398509481984" is not a number of kB`},
	} {
		got, err := parseStatusKB(c.in, "VmPin")
		if (err == nil) != (c.err == "") || err != nil && err.Error() != c.err || got != c.want {
			t.Errorf("parseStatusKB(%q) = %d, %v; want %d, %q", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParsePasswdName(t *testing.T) {
	const pw = "root:x:0:0::/:/bin/sh\n:x:5:5::/:/bin/sh\nbad line\nbob:x:1001:1001::/:/bin/sh"
	for uid, want := range map[int]string{0: "root", 1001: "bob", 5: "", 7: ""} {
		if got := parsePasswdName(pw, uid); got != want {
			t.Errorf("parsePasswdName(%d) = %q, want %q", uid, got, want)
		}
	}
}
