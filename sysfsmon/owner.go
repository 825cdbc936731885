package sysfsmon

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// ProcessOwner is who a process is, for the questions "which job holds
// these objects" and "will its next ibv_reg_mr fail": its command line,
// user, cgroup (with the unit, container and pod the path names) and
// RLIMIT_MEMLOCK, read from /proc/PID (proc(5): cmdline, status, cgroup,
// limits).
type ProcessOwner struct {
	TGID int    `json:"tgid"`
	Comm string `json:"comm"` // /proc/PID/comm
	// Cmdline is /proc/PID/cmdline with its NULs as spaces; empty for a
	// zombie or a kernel thread.
	Cmdline string `json:"cmdline"`
	UID     int    `json:"uid"`  // effective uid (/proc/PID/status Uid)
	User    string `json:"user"` // the uid's name in /etc/passwd (passwd(5)), else the number
	// IPCLock is set when the process has CAP_IPC_LOCK: ib_umem_get
	// (drivers/infiniband/core/umem.c) then pins memory past
	// RLIMIT_MEMLOCK, so the limit cannot fail its registrations.
	IPCLock bool   `json:"ipc_lock"`
	Cgroup  Cgroup `json:"cgroup"`
	// MemlockSoft and MemlockHard are "Max locked memory" of
	// /proc/PID/limits (getrlimit(2) RLIMIT_MEMLOCK): ib_umem_get fails
	// with ENOMEM once the pages pinned exceed the soft limit.
	MemlockSoft Limit `json:"memlock_soft"`
	MemlockHard Limit `json:"memlock_hard"`
	// VmPin is what the kernel counts as pinned for the process, in
	// bytes (/proc/PID/status VmPin, mm->pinned_vm): ib_umem_get adds
	// the pages of each registration to it, and compares it with
	// RLIMIT_MEMLOCK. 0 for a zombie, which has no memory left.
	VmPin uint64 `json:"vm_pin"`
	// Warnings are the files that could not be read or parsed; what was
	// read stands.
	Warnings []Warning `json:"warnings,omitempty"`
}

// ProcessOwner reads what /proc says about process tgid: comm, cmdline,
// status, cgroup and limits (all readable by any user). A process that
// does not exist gives an error wrapping ErrNoProcess; a file that cannot
// be read or parsed (a process exiting half-way) is a Warning.
func (f *FS) ProcessOwner(tgid int) (ProcessOwner, error) {
	return f.processOwner(tgid, nil)
}

// kept is what an earlier read of the same process (OwnerCache) knows:
// its comm (the same in the stat file just read), command line, and
// user's name, which stands when its uid is the same.
type kept struct {
	comm, cmdline, user string
	uid                 int
}

func (f *FS) processOwner(tgid int, k *kept) (ProcessOwner, error) {
	dir := strconv.Itoa(tgid)
	o := ProcessOwner{TGID: tgid, UID: -1}
	status, err := f.read(f.procPath(dir, "status"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return o, fmt.Errorf("sysfsmon: process %d: %w", tgid, ErrNoProcess)
		}
		return o, fmt.Errorf("sysfsmon: process %d: %w", tgid, err)
	}
	var ws warnings
	if c, err := parseStatusCred(status); err != nil {
		ws.add(f, f.procPath(dir, "status"), err)
	} else {
		o.UID, o.IPCLock = c.UID, c.HasCap(CapIPCLock)
		if k != nil && k.uid == c.UID {
			o.User = k.user
		} else {
			o.User = f.userName(c.UID)
		}
	}
	if o.VmPin, err = parseStatusKB(status, "VmPin"); err != nil {
		ws.add(f, f.procPath(dir, "status"), err)
	}
	if k != nil {
		o.Comm, o.Cmdline = k.comm, k.cmdline
	} else {
		o.Comm = f.optional(&ws, f.procPath(dir, "comm"))
		o.Cmdline = strings.TrimSpace(strings.ReplaceAll(f.optional(&ws, f.procPath(dir, "cmdline")), "\x00", " "))
	}
	if s := f.optional(&ws, f.procPath(dir, "cgroup")); s != "" {
		if p, err := parseProcCgroup(s); err != nil {
			ws.add(f, f.procPath(dir, "cgroup"), err)
		} else {
			o.Cgroup = ParseCgroupPath(p)
		}
	}
	if s := f.optional(&ws, f.procPath(dir, "limits")); s != "" {
		if o.MemlockSoft, o.MemlockHard, err = parseMemlock(s); err != nil {
			ws.add(f, f.procPath(dir, "limits"), err)
		}
	}
	o.Warnings = ws
	return o, nil
}

// userName looks uid up in the host's /etc/passwd; the number when it is
// not there (users from LDAP or another container's passwd).
func (f *FS) userName(uid int) string {
	if s, err := f.read(f.rootPath("etc", "passwd")); err == nil {
		if name := parsePasswdName(s, uid); name != "" {
			return name
		}
	}
	return strconv.Itoa(uid)
}

// parsePasswdName returns the name of uid in passwd(5) text
// ("name:password:UID:GID:..."), or "".
func parsePasswdName(data string, uid int) string {
	want := strconv.Itoa(uid)
	for line := range strings.SplitSeq(data, "\n") {
		f := strings.SplitN(line, ":", 4)
		if len(f) == 4 && f[2] == want && f[0] != "" {
			return f[0]
		}
	}
	return ""
}
