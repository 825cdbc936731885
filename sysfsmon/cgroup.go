package sysfsmon

import (
	"errors"
	"fmt"
	"strings"
)

// Cgroup is where a process sits in the cgroup tree and what the path
// says about who started it. Path comes from /proc/PID/cgroup
// (cgroups(7), "/proc/[pid]/cgroup"; Documentation/admin-guide/
// cgroup-v2.rst, "Processes"); the rest is read out of the path's
// components by the names systemd, the container runtimes and the
// kubelet give them, the way cAdvisor (container/*/factory.go) and ceems
// read them. A path no pattern fits keeps only Path: the front ends then
// show the raw path.
//
// The names are taken only where the one who could have given them is
// known (ParseCgroupPath): a unit where a systemd manager keeps its
// units, a container where its runtime or a manager put it. A delegated
// subtree (a unit's own cgroups, Delegate= in systemd.resource-control(5))
// can hold directories of any name, "docker-<id>.scope" or "nginx.service"
// included; those say nothing. Still, what the path says is advisory: it
// names where a process sits, not who it is.
type Cgroup struct {
	// Path is the cgroup v2 path ("0::" line), or on a v1-only host the
	// name=systemd hierarchy's path; "/" for the root cgroup.
	Path string `json:"path"`
	// Unit is the innermost systemd unit the path names: a component
	// ending in .service or .scope ("nginx.service", "docker-<id>.scope",
	// "session-3.scope"; systemd.unit(5)) whose parents up to the root
	// are slices (a manager puts each unit's cgroup in its slice's),
	// or slices within a user manager (UserManager). Empty outside
	// systemd's tree.
	Unit string `json:"unit,omitempty"`
	// Slice is the innermost systemd slice among those parents
	// ("system.slice", "kubepods-besteffort-pod<uid>.slice";
	// systemd.slice(5)).
	Slice string `json:"slice,omitempty"`
	// UserManager is the user's systemd manager the unit lies under
	// ("user@1000.service", in user-1000.slice: user@.service(5)): the
	// unit, and a container there, is that user's, named by that user.
	// Empty for the system manager's.
	UserManager string `json:"user_manager,omitempty"`
	// Runtime is the container runtime the path names: "docker",
	// "containerd", "cri-o" or "podman". Empty outside a container.
	Runtime string `json:"runtime,omitempty"`
	// ContainerID is the container's 64-hex-digit ID (docker ps and
	// crictl ps print its first 12).
	ContainerID string `json:"container_id,omitempty"`
	// PodUID is the Kubernetes pod's UID with dashes
	// (metadata.uid: "0f6a9c1e-..."), from the kubelet's pod cgroup
	// ("kubepods-besteffort-pod<uid>.slice" with "_" for "-" under the
	// systemd driver, "pod<uid>" under cgroupfs).
	PodUID string `json:"pod_uid,omitempty"`
}

// ShortID is the container ID's first 12 digits, as docker ps, crictl ps
// and podman ps print it; empty outside a container.
func (c Cgroup) ShortID() string {
	if len(c.ContainerID) > 12 {
		return c.ContainerID[:12]
	}
	return c.ContainerID
}

// containerPrefixes are the scope and directory names runtimes give a
// container's cgroup, before the 64-hex-digit ID (cAdvisor's
// container/{docker,containerd,crio,podman} handlers; the conmon scopes
// "crio-conmon-" and "libpod-conmon-" hold the monitor, not the
// container, and are left out by the ID check).
var containerPrefixes = []struct{ prefix, runtime string }{
	{"docker-", "docker"},             // docker, systemd cgroup driver: docker-<id>.scope
	{"cri-containerd-", "containerd"}, // kubelet + containerd, systemd driver
	{"nerdctl-", "containerd"},        // nerdctl, systemd driver
	{"crio-", "cri-o"},                // kubelet + cri-o: crio-<id>.scope
	{"libpod-", "podman"},             // podman: libpod-<id>.scope
}

// cgroupfsParents are the parent directories under which runtimes using
// the cgroupfs driver name a container's cgroup by its bare ID
// ("/docker/<id>"; containerd's namespaces "/default/<id>" and
// "/k8s.io/<id>"; "/kubepods/.../pod<uid>/<id>" is told from the pod
// component).
var cgroupfsParents = map[string]string{"docker": "docker", "libpod_parent": "podman", "default": "containerd", "k8s.io": "containerd"}

// ParseCgroupPath reads the unit, slice, container and pod out of a
// cgroup v2 path. It never fails: what it cannot name stays empty.
//
// A name counts only where its giver is known. Only root makes cgroups
// at the top of the tree, so the cgroupfs drivers' folders ("/docker",
// "/kubepods") count only there. A systemd manager makes a unit's
// cgroup in its slice's, so a unit, and a runtime's container scope,
// counts only under slices from the root, or under a user manager
// (user.slice/user-UID.slice/user@UID.service) and its slices, as that
// user's. Below a unit lies the unit's own subtree, which it (and a user
// it delegates to) names as it likes: nothing there counts.
func ParseCgroupPath(path string) Cgroup {
	c := Cgroup{Path: path}
	parts := strings.Split(strings.Trim(path, "/"), "/")
	top := parts[0]
	k8s := top == "kubepods" || top == "kubepods.slice"
	// managed: every component so far is a slice, or the user-manager
	// chain; a unit's cgroup beneath ends it.
	managed := true
	for i, p := range parts {
		isUnit := strings.HasSuffix(p, ".service") || strings.HasSuffix(p, ".scope")
		switch {
		case !managed:
		case strings.HasSuffix(p, ".slice"):
			c.Slice = p
		case isUnit:
			c.Unit = p
			managed = i == 2 && isUserManager(parts[0], parts[1], p)
			if managed {
				c.UserManager = p
			}
		default:
			managed = false
		}
		if uid, ok := podUID(p); ok && k8s && (i == 0 || c.Slice == p || !strings.HasSuffix(p, ".slice")) {
			c.PodUID = uid
		}
		if rt, id, ok := containerOf(p); ok {
			if isUnit && c.Unit == p {
				c.Runtime, c.ContainerID = rt, id
			}
			continue
		}
		if isContainerID(p) && i > 0 {
			// cgroupfs drivers: the bare ID under its runtime's folder
			// at the top, or under a kubelet pod folder (the runtime
			// is not named).
			if rt, ok := cgroupfsParents[parts[i-1]]; ok && i == 1 {
				c.Runtime, c.ContainerID = rt, p
			} else if c.PodUID != "" && !strings.HasSuffix(top, ".slice") {
				c.ContainerID = p
			}
		}
	}
	return c
}

// isUserManager reports whether unit, under slices user and userSlice
// (the first two components), is the systemd user manager of the uid
// the slice names: "user.slice/user-1000.slice/user@1000.service".
func isUserManager(user, userSlice, unit string) bool {
	uid, ok := strings.CutPrefix(strings.TrimSuffix(userSlice, ".slice"), "user-")
	return user == "user.slice" && ok && uid != "" && unit == "user@"+uid+".service"
}

// containerOf reads "<prefix><64 hex>[.scope]" as a runtime's container.
func containerOf(p string) (runtime, id string, ok bool) {
	name := strings.TrimSuffix(p, ".scope")
	for _, cp := range containerPrefixes {
		if rest, found := strings.CutPrefix(name, cp.prefix); found && isContainerID(rest) {
			return cp.runtime, rest, true
		}
	}
	return "", "", false
}

// isContainerID reports whether s is 64 lower-case hex digits, the ID
// docker, containerd, cri-o and podman all use.
func isContainerID(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// podUID reads a kubelet pod cgroup name: "kubepods-<qos>-pod<uid>.slice"
// or "kubepods-pod<uid>.slice" (systemd driver, "_" for "-" since "-"
// separates slice levels) or "pod<uid>" (cgroupfs driver).
func podUID(p string) (string, bool) {
	name := p
	if s, ok := strings.CutSuffix(p, ".slice"); ok {
		i := strings.LastIndex(s, "-pod")
		if i < 0 || !strings.HasPrefix(s, "kubepods") {
			return "", false
		}
		name = strings.ReplaceAll(s[i+len("-pod"):], "_", "-")
	} else if rest, ok := strings.CutPrefix(p, "pod"); ok {
		name = rest
	} else {
		return "", false
	}
	return name, isUUID(name)
}

// isUUID reports whether s is a UUID in its 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch i {
		case 8, 13, 18, 23:
			if r != '-' {
				return false
			}
		default:
			if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
				return false
			}
		}
	}
	return true
}

// parseProcCgroup returns the cgroup path of /proc/PID/cgroup
// (cgroups(7): "hierarchy-ID:controller-list:cgroup-path" per line): the
// v2 line "0::PATH", or on a host with only v1 hierarchies the
// name=systemd one, which systemd keeps in the same tree.
func parseProcCgroup(data string) (string, error) {
	var v1 string
	for line := range strings.SplitSeq(data, "\n") {
		if line == "" {
			continue
		}
		id, rest, ok := strings.Cut(line, ":")
		ctrl, path, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 || !strings.HasPrefix(path, "/") {
			return "", fmt.Errorf("cgroup: %q: want hierarchy-ID:controllers:/path", line)
		}
		switch {
		case id == "0" && ctrl == "":
			return path, nil
		case ctrl == "name=systemd":
			v1 = path
		}
	}
	if v1 != "" {
		return v1, nil
	}
	return "", errors.New("cgroup: no cgroup v2 (0::) or name=systemd line")
}
