package sysfsmon

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Cred is who a process is, as far as opening /dev/infiniband and pinning
// memory care: the Uid, Gid, Groups and CapEff lines of /proc/PID/status
// (Documentation/filesystems/proc.rst, "1.1 Process-Specific
// Subdirectories"). prometheus/procfs reads the ids and capabilities but
// not the supplementary groups, which decide access to a group-owned
// uverbs node.
type Cred struct {
	UID    int    `json:"uid"`     // effective user id (the second Uid field)
	GID    int    `json:"gid"`     // effective group id (the second Gid field)
	Groups []int  `json:"groups"`  // supplementary groups
	CapEff uint64 `json:"cap_eff"` // effective capabilities, bit N is capability N
}

// Capability numbers of include/uapi/linux/capability.h that RDMA cares
// about.
const (
	// CapDACOverride lets a process open files whatever their mode.
	CapDACOverride = 1
	// CapNetAdmin makes RDMA netlink send MR and PD keys.
	CapNetAdmin = 12
	// CapIPCLock lifts RLIMIT_MEMLOCK for ibv_reg_mr (ib_umem_get in
	// drivers/infiniband/core/umem.c checks it).
	CapIPCLock = 14
)

// HasCap reports whether capability n is effective.
func (c Cred) HasCap(n int) bool { return n >= 0 && n < 64 && c.CapEff&(1<<n) != 0 }

// InGroup reports whether gid is the effective group or a supplementary
// one.
func (c Cred) InGroup(gid int) bool { return c.GID == gid || slices.Contains(c.Groups, gid) }

// parseStatusCred reads the credentials out of /proc/PID/status. Uid and
// Gid must be there; Groups and CapEff may be missing (CapEff is then 0).
func parseStatusCred(data string) (Cred, error) {
	var c Cred
	var haveUID, haveGID bool
	for line := range strings.SplitSeq(data, "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		var err error
		switch key {
		case "Uid":
			c.UID, err = effectiveID(f)
			haveUID = err == nil
		case "Gid":
			c.GID, err = effectiveID(f)
			haveGID = err == nil
		case "Groups":
			c.Groups = nil
			for _, s := range f {
				g, gerr := parseID(s)
				if gerr != nil {
					err = gerr
					break
				}
				c.Groups = append(c.Groups, g)
			}
		case "CapEff":
			if len(f) != 1 {
				err = fmt.Errorf("want one hex mask, got %q", strings.TrimSpace(val))
				break
			}
			c.CapEff, err = strconv.ParseUint(f[0], 16, 64)
		default:
			continue
		}
		if err != nil {
			return Cred{}, fmt.Errorf("status: %s: %w", key, err)
		}
	}
	if !haveUID || !haveGID {
		return Cred{}, errors.New("status: no Uid or Gid line")
	}
	return c, nil
}

// effectiveID picks the effective id of a "real effective saved fs" line.
func effectiveID(f []string) (int, error) {
	if len(f) != 4 {
		return 0, fmt.Errorf("want real, effective, saved and filesystem ids, got %d fields", len(f))
	}
	for _, s := range f {
		if _, err := parseID(s); err != nil {
			return 0, err
		}
	}
	return parseID(f[1])
}

func parseID(s string) (int, error) {
	v, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not an id", s)
	}
	return int(v), nil
}
