package verbs

import (
	"errors"
	"github.com/verbscope/verbscope/rdma"
	"os"
	"strings"
	"syscall"
	"testing"
)

// On a host whose kernel has no RDMA (these build machines), the device
// list is empty and the error says why instead of crashing. (Inside the
// lab VM, the lab tests check the list against ibv_devinfo.)
func TestDevicesOnThisHost(t *testing.T) {
	devs, err := Devices()
	if _, serr := os.Stat("/sys/class/infiniband_verbs"); serr == nil && Backend == "libibverbs" {
		if err != nil || len(devs) == 0 {
			t.Fatalf("this host has uverbs devices, but Devices() = %v, %v", devs, err)
		}
		return
	}
	if len(devs) != 0 {
		t.Fatalf("got %d devices on a host without RDMA", len(devs))
	}
	if !errors.Is(err, ErrNoDevice) && !errors.Is(err, ErrUnsupported) {
		t.Fatalf("error %v is neither ErrNoDevice nor ErrUnsupported", err)
	}
	if Backend == "libibverbs" {
		if !errors.Is(err, syscall.ENOSYS) || !strings.Contains(err.Error(), "verbscope lab") {
			t.Errorf("error %q: want ENOSYS with a hint to use the lab", err)
		}
	}
	if _, err := Open("rxe0"); err == nil {
		t.Error("Open succeeded on a host without RDMA")
	}
}

func TestClosedContext(t *testing.T) {
	var c Context // never opened: behaves as closed
	if err := c.Close(); err != nil {
		t.Errorf("Close of a closed context: %v", err)
	}
	if _, err := c.QueryDevice(); !errors.Is(err, ErrClosed) {
		t.Errorf("QueryDevice on a closed context: %v, want ErrClosed", err)
	}
}

func TestErrorKeepsErrno(t *testing.T) {
	err := errnoError("ibv_destroy_cq", syscall.EBUSY)
	if !errors.Is(err, syscall.EBUSY) {
		t.Fatal("errors.Is(err, EBUSY) is false")
	}
	want := "verbs: ibv_destroy_cq: device or resource busy (EBUSY) (the object still has children: destroy QPs, CQs, MRs and AHs before their PD or context)"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
	if err := errnoError("ibv_create_qp", 0); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "without setting errno") {
		t.Errorf("errno 0: %v", err)
	}
}

func TestGIDFormats(t *testing.T) {
	v4 := GID{10: 0xff, 11: 0xff, 12: 10, 13: 0, 14: 0, 15: 1}
	ll := GID{0: 0xfe, 1: 0x80, 8: 0x04, 9: 0xd6, 10: 0x14, 11: 0xff, 12: 0xfe, 13: 0xb1, 14: 0x88, 15: 0x06}
	for _, tc := range []struct {
		g        GID
		str, raw string
	}{
		{v4, "::ffff:10.0.0.1", "0000:0000:0000:0000:0000:ffff:0a00:0001"},
		{ll, "fe80::4d6:14ff:feb1:8806", "fe80:0000:0000:0000:04d6:14ff:feb1:8806"},
		{GID{}, "::", "0000:0000:0000:0000:0000:0000:0000:0000"},
	} {
		if got := tc.g.String(); got != tc.str {
			t.Errorf("String() = %q, want %q", got, tc.str)
		}
		if got := tc.g.Raw(); got != tc.raw {
			t.Errorf("Raw() = %q, want %q", got, tc.raw)
		}
	}
	if got := GUIDString(0x04d614fffeb18806); got != "04d6:14ff:feb1:8806" {
		t.Errorf("GUIDString = %q", got)
	}
}

func TestMTU(t *testing.T) {
	for m, b := range map[MTU]int{rdma.MTU256: 256, rdma.MTU1024: 1024, rdma.MTU4096: 4096, 0: 0, 6: 0} {
		if got := m.Bytes(); got != b {
			t.Errorf("MTU(%d).Bytes() = %d, want %d", m, got, b)
		}
	}
	if m, ok := rdma.MTUFromBytes(2048); !ok || m != rdma.MTU2048 {
		t.Errorf("MTUFromBytes(2048) = %v, %v", m, ok)
	}
	if _, ok := rdma.MTUFromBytes(1500); ok {
		t.Error("1500 is not an IB MTU")
	}
}
