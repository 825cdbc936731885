package rdma

import (
	"syscall"
	"testing"
)

func TestKernelVersion(t *testing.T) {
	for _, tc := range []struct {
		rel          string
		major, minor int
		ok           bool
	}{
		{"6.1.0-57-amd64", 6, 1, true},
		{"6.12.117+deb13-amd64", 6, 12, true},
		{"7.0", 7, 0, true},
		{"6", 0, 0, false},
		{"", 0, 0, false},
		{"x.y", 0, 0, false},
		{"-6.1", 0, 0, false},
	} {
		major, minor, ok := KernelVersion(tc.rel)
		if major != tc.major && tc.ok || minor != tc.minor && tc.ok || ok != tc.ok {
			t.Errorf("KernelVersion(%q) = %d, %d, %v; want %d, %d, %v", tc.rel, major, minor, ok, tc.major, tc.minor, tc.ok)
		}
	}
}

func FuzzKernelVersion(f *testing.F) {
	f.Add("6.12.117+deb13-amd64")
	f.Fuzz(func(t *testing.T, rel string) {
		if major, minor, ok := KernelVersion(rel); ok && (major < 0 || minor < 0) {
			t.Fatalf("KernelVersion(%q) = %d.%d", rel, major, minor)
		}
	})
}

// rxe from 6.12 changes attributes in place without the state table when
// the mask has no STATE; 6.1's (and an unknown kernel, taken as 6.1)
// checks them as cur→cur. With STATE both consult the table.
func TestCheckRxeWithoutStateByKernel(t *testing.T) {
	for _, tc := range []struct {
		kernel string
		mask   QPAttrMask
		want   syscall.Errno
	}{
		{"", 0, syscall.EINVAL},
		{"6.1.0-57-amd64", 0, syscall.EINVAL},
		{"6.12.117+deb13-amd64", 0, 0},
		{"6.12.117+deb13-amd64", AttrCurState, 0},
		{"6.12.117+deb13-amd64", AttrState | AttrPathMTU, syscall.EINVAL}, // RTR→RTR is no step
	} {
		env := rxeEnv()
		env.Kernel = tc.kernel
		v := Check(QPStateRTR, QPStateRTR, QPTypeRC, tc.mask, &QPAttr{CurState: QPStateRTR, PathMTU: MTU1024}, env)
		if v.Errno != tc.want || v.TableOK != (tc.want == 0) {
			t.Errorf("kernel %q mask %s: errno %v TableOK %v, want %v", tc.kernel, tc.mask, v.Errno, v.TableOK, tc.want)
		}
	}
}

// Without STATE on 6.12, rxe_qp_chk_attr still refuses ACCESS_FLAGS on a
// UD QP (the table, skipped, would have).
func TestCheckRxeAccessFlagsOnUDWithoutState(t *testing.T) {
	env := rxeEnv()
	env.Kernel = "6.12.117+deb13-amd64"
	v := Check(QPStateRTS, QPStateRTS, QPTypeUD, AttrAccessFlags, &QPAttr{}, env)
	if d := v.Decisive(); v.Errno != syscall.EINVAL || d == nil || d.Rule != "rxe.access-type" {
		t.Errorf("UD ACCESS_FLAGS without STATE: errno %v decisive %v, want EINVAL from rxe.access-type", v.Errno, d)
	}
	if v := Check(QPStateRTS, QPStateRTS, QPTypeRC, AttrAccessFlags, &QPAttr{}, env); v.Errno != 0 {
		t.Errorf("RC ACCESS_FLAGS without STATE: errno %v, want accepted", v.Errno)
	}
}
