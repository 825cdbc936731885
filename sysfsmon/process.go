package sysfsmon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Process is what procfs says about one process or thread id: whether it
// is alive, which process a thread id belongs to, and its name. The RDMA
// netlink dumps name the thread that created an object as its "pid"
// (task_pid_vnr of the creating task in drivers/infiniband/core/nldev.c),
// so a pid there may be a thread of a live process; /proc/TID answers for
// threads too, though it is not listed.
type Process struct {
	PID int `json:"pid"`
	// TGID is the process the id belongs to (/proc/PID/status Tgid); PID
	// itself for a process's main thread.
	TGID int    `json:"tgid"`
	Comm string `json:"comm"` // /proc/PID/stat's comm
	// State is the one-letter state of /proc/PID/stat: R, S, D, Z (a
	// zombie: exited, not yet reaped by its parent), X, ...
	State string `json:"state"`
}

// Zombie reports whether the process has exited and only its parent's
// wait is missing.
func (p Process) Zombie() bool { return p.State == "Z" || p.State == "X" }

// ErrNoProcess means the process id is not live: /proc/PID does not exist.
var ErrNoProcess = errors.New("no such process")

// Process reads /proc/PID/stat and /proc/PID/status (proc(5)) through
// prometheus/procfs. A process that does not exist gives an error wrapping
// ErrNoProcess.
func (f *FS) Process(pid int) (Process, error) {
	p, err := f.procfs.Proc(pid)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Process{}, fmt.Errorf("sysfsmon: process %d: %w", pid, ErrNoProcess)
		}
		return Process{}, fmt.Errorf("sysfsmon: process %d: %w", pid, err)
	}
	st, err := p.Stat()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = ErrNoProcess // it exited between the two reads
		}
		return Process{}, fmt.Errorf("sysfsmon: process %d: %w", pid, err)
	}
	out := Process{PID: pid, TGID: pid, Comm: st.Comm, State: st.State}
	if s, err := p.NewStatus(); err == nil && s.TGID > 0 {
		out.TGID = s.TGID
	}
	return out, nil
}

// FDHolder is one open file descriptor of some process on a
// /dev/infiniband node: who keeps a device context (and every verbs
// object in it) alive.
type FDHolder struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm"`
	FD   int    `json:"fd"`
	// Path is the descriptor's target, /proc/PID/fd/FD read as a link:
	// "/dev/infiniband/uverbs0".
	Path string `json:"path"`
}

// DevHolders lists every file descriptor open on a /dev/infiniband node,
// by scanning /proc/*/fd (proc(5): the links name what each descriptor
// has open). Other users' descriptors can only be read with
// CAP_SYS_PTRACE (root); unreadable counts the processes that were
// skipped. Processes that exit during the scan are skipped silently.
func (f *FS) DevHolders() (holders []FDHolder, unreadable int, err error) {
	names, err := f.listDir(f.proc)
	if err != nil {
		return nil, 0, fmt.Errorf("sysfsmon: fd holders: %w", err)
	}
	for _, pid := range numericNames(names) {
		dir := f.procPath(strconv.Itoa(pid), "fd")
		ents, err := os.ReadDir(dir)
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				unreadable++
			}
			continue
		}
		var comm string
		for _, fd := range numericNames(direntNames(ents)) {
			target, err := os.Readlink(filepath.Join(dir, strconv.Itoa(fd)))
			if err != nil || !strings.HasPrefix(target, "/dev/infiniband/") {
				continue
			}
			if comm == "" {
				comm = f.optional(new(warnings), f.procPath(strconv.Itoa(pid), "comm"))
			}
			holders = append(holders, FDHolder{PID: pid, Comm: comm, FD: fd, Path: target})
		}
	}
	return holders, unreadable, nil
}

func direntNames(ents []os.DirEntry) []string {
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = e.Name()
	}
	return out
}
