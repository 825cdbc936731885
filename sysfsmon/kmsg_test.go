package sysfsmon

import (
	"errors"
	"io"
	"io/fs"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseKmsg(t *testing.T) {
	for _, c := range []struct {
		in   string
		want KernelLine
		err  string
	}{
		{in: "6,1203,18437201,-;rdma_rxe: loaded\n",
			want: KernelLine{Level: 6, Seq: 1203, Since: 18437201 * time.Microsecond, Text: "rdma_rxe: loaded", Driver: "rdma_rxe"}},
		{in: "3,2001,99000000,-;mlx5_core 0000:3b:00.0: mlx5_cmd_out_err:803:(pid 1234): CREATE_QP(0x500) op_mod(0x0) failed, status bad parameter(0x3)\n SUBSYSTEM=pci\n DEVICE=+pci:0000:3b:00.0\n",
			want: KernelLine{Level: 3, Seq: 2001, Since: 99 * time.Second, Text: "mlx5_core 0000:3b:00.0: mlx5_cmd_out_err:803:(pid 1234): CREATE_QP(0x500) op_mod(0x0) failed, status bad parameter(0x3)",
				Device: "0000:3b:00.0", Driver: "mlx5_core"}},
		{in: "4,7,5,c;infiniband rxe0: DMA mapping error\n DEVICE=+infiniband:rxe0\n",
			want: KernelLine{Level: 4, Seq: 7, Since: 5 * time.Microsecond, Text: "infiniband rxe0: DMA mapping error", Device: "rxe0", Driver: "rdma_rxe"}},
		{in: "6,12,1,-;infiniband roce0: set active\n DEVICE=+infiniband:roce0\n",
			want: KernelLine{Level: 6, Seq: 12, Since: time.Microsecond, Text: "infiniband roce0: set active", Device: "roce0", Driver: "infiniband"}},
		{in: "12,8,0,-;rxe0: qp#17 moved to error state\n",
			want: KernelLine{Level: 4, Facility: 1, Seq: 8, Text: "rxe0: qp#17 moved to error state", Device: "rxe0", Driver: "rdma_rxe"}},
		{in: "6,9,1,-;mlx5_1: port 1 link up\n", want: KernelLine{Level: 6, Seq: 9, Since: time.Microsecond, Text: "mlx5_1: port 1 link up", Device: "mlx5_1", Driver: "mlx5_ib"}},
		{in: "6,10,1,-;e1000e: eth0 NIC Link is Up\n", want: KernelLine{Level: 6, Seq: 10, Since: time.Microsecond, Text: "e1000e: eth0 NIC Link is Up"}},
		{in: "6,11,1,-;rxeon: not a device\n", want: KernelLine{Level: 6, Seq: 11, Since: time.Microsecond, Text: "rxeon: not a device"}},
		{in: "no header", err: "kmsg: no ';' after the record's header"},
		{in: "6,x,1,-;y", err: `kmsg: header "6,x,1,-": want numbers`},
		{in: "6,1;y", err: `kmsg: header "6,1": want PRI,SEQ,TS_USEC[,FLAGS]`},
	} {
		got, err := parseKmsg(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("parseKmsg(%q): %v, want error %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseKmsg(%q): %v", c.in, err)
		} else if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("parseKmsg(%q) (-want +got):\n%s", c.in, diff)
		}
	}
	if n := (KernelLine{Level: 3}).LevelName(); n != "err" {
		t.Errorf("LevelName(3) = %q", n)
	}
}

// records is /dev/kmsg as a reader: one record per Read, an EPIPE where
// the ring overwrote records, then errEnd.
type records struct {
	recs   []string
	errEnd error
}

func (r *records) Read(b []byte) (int, error) {
	if len(r.recs) == 0 {
		return 0, r.errEnd
	}
	rec := r.recs[0]
	r.recs = r.recs[1:]
	if rec == "" {
		return 0, syscall.EPIPE
	}
	return copy(b, rec), nil
}

func TestReadKmsg(t *testing.T) {
	var got []string
	err := readKmsg(&records{recs: []string{
		"6,1,1,-;rdma_rxe: loaded\n", "6,2,2,-;e1000e: eth0 up\n", "",
		"3,9,3,-;infiniband rxe0: DMA mapping error\n DEVICE=+infiniband:rxe0\n", "garbage",
	}, errEnd: io.EOF}, func(l KernelLine) { got = append(got, l.Driver+"|"+l.Device+"|"+l.Text) })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"rdma_rxe||rdma_rxe: loaded", "rdma_rxe|rxe0|infiniband rxe0: DMA mapping error"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if err := readKmsg(&records{errEnd: syscall.EIO}, func(KernelLine) {}); !errors.Is(err, syscall.EIO) {
		t.Errorf("a failing read: %v", err)
	}
}

// Without /dev/kmsg (a container without it) FollowKernelLog says so.
func TestFollowKernelLogMissing(t *testing.T) {
	root := t.TempDir()
	f, err := NewFS(root, root, WithHostRoot(root))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.FollowKernelLog(t.Context(), func(KernelLine) {}); err == nil || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no /dev/kmsg: %v", err)
	}
}

func TestKernelLineQPN(t *testing.T) {
	for text, want := range map[string]int{
		"rxe0: qp#17 moved to error state": 17, "mlx5_ib: QPN 0x11 err": 17, "rdma_rxe: qpn=300 x": 300,
		"irdma0: qp 5 flushed": 5, "rdma_rxe: loaded": -1, "qpx 12": -1, "mlx5_core: qp 99999999": -1,
	} {
		n, ok := KernelLine{Text: text}.QPN()
		if got := map[bool]int{true: int(n), false: -1}[ok]; got != want {
			t.Errorf("QPN(%q) = %d, want %d", text, got, want)
		}
	}
}
