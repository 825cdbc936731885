package rdma

import "syscall"

// ErrnoName is the errno's symbolic name as errno(3) and the kernel's
// include/uapi/asm-generic/errno-base.h spell it ("EINVAL"), or "" for
// one verbs calls do not return.
func ErrnoName(en syscall.Errno) string {
	switch en {
	case syscall.EPERM:
		return "EPERM"
	case syscall.ENOENT:
		return "ENOENT"
	case syscall.EIO:
		return "EIO"
	case syscall.ENOMEM:
		return "ENOMEM"
	case syscall.EACCES:
		return "EACCES"
	case syscall.EFAULT:
		return "EFAULT"
	case syscall.EBUSY:
		return "EBUSY"
	case syscall.EEXIST:
		return "EEXIST"
	case syscall.ENODEV:
		return "ENODEV"
	case syscall.EINVAL:
		return "EINVAL"
	case syscall.ENOSPC:
		return "ENOSPC"
	case syscall.EAGAIN:
		return "EAGAIN"
	case syscall.ENOSYS:
		return "ENOSYS"
	case syscall.EOPNOTSUPP:
		return "EOPNOTSUPP"
	case syscall.ETIMEDOUT:
		return "ETIMEDOUT"
	case syscall.ENETUNREACH:
		return "ENETUNREACH"
	case syscall.ENODATA:
		return "ENODATA"
	}
	return ""
}

// ErrnoText names an errno the way man pages do ("EINVAL"), falling back
// to its text for one ErrnoName does not know.
func ErrnoText(en syscall.Errno) string {
	if n := ErrnoName(en); n != "" {
		return n
	}
	return en.Error()
}
