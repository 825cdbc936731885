package inspect

// Owner is what /proc says about the task that created a user object.
// The kernel records the creating task (restrack's res->task) and sends
// its pid only while the task has one (fill_res_name_pid in
// drivers/infiniband/core/nldev.c: task_pid_vnr is 0 once it is reaped);
// /proc/PID/status (proc(5)) tells a live task from a zombie. The objects
// outlive their process when another process holds the uverbs descriptor
// (inherited across fork, or passed on), until it closes.
type Owner uint8

// Owner states.
const (
	// OwnerUnknown: not looked up (an object that did not come from a
	// Conn's dump).
	OwnerUnknown Owner = iota
	// OwnerKernel: a kernel object (RDMA_NLDEV_ATTR_RES_KERN_NAME).
	OwnerKernel
	// OwnerLive: the creating task is alive.
	OwnerLive
	// OwnerZombie: the creating task has exited and is not yet reaped
	// (State Z in /proc/PID/status).
	OwnerZombie
	// OwnerGone: the kernel sent a pid that /proc no longer has: the
	// task exited between the dump and the look-up.
	OwnerGone
	// OwnerExited: a user object without a pid: its creating task has
	// been reaped. Its process is dead, unless only the creating thread
	// ended and the rest of the process lives on (netlink cannot tell).
	OwnerExited
)

var ownerNames = [...]string{"unknown", "kernel", "live", "zombie", "gone", "exited"}

// String returns "live", "zombie", ...
func (o Owner) String() string { return nameOr(ownerNames[:], int(o), "unknown") }

// Dead reports whether the object's creating task has exited: a zombie,
// gone from /proc, or reaped (no pid).
func (o Owner) Dead() bool { return o == OwnerZombie || o == OwnerGone || o == OwnerExited }
