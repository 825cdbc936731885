package owners

import (
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/testtree"
	"github.com/verbscope/verbscope/sysfsmon"
)

// BenchmarkRead1kObjects10Procs is one frame of the owners view: 1,000
// objects of 10 processes, each process read from a /proc tree as
// sysfsmon.FS.ProcessOwner reads a live one (status, comm, cmdline,
// cgroup, limits and /etc/passwd), or through an OwnerCache as the
// dashboard and the exporter do (stat, status, cgroup, limits).
func BenchmarkRead1kObjects10Procs(b *testing.B) {
	root := b.TempDir()
	write := func(rel, s string) { testtree.Write(b, root, rel, s) }
	write("sys/.keep", "")
	write("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/sh\n")
	s := &inspect.Snapshot{}
	for p := range 10 {
		tgid := 1000 + p
		dir := "proc/" + strconv.Itoa(tgid) + "/"
		write(dir+"status", "Name:\tjob\nTgid:\t"+strconv.Itoa(tgid)+"\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\nVmPin:\t    4096 kB\n")
		write(dir+"stat", fmt.Sprintf("%d (job) S 1 %d %d 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 %d 10000000 300 0 0 0 0\n", tgid, tgid, tgid, 500+p))
		write(dir+"comm", "job\n")
		write(dir+"cmdline", "job\x00--rank\x00"+strconv.Itoa(p)+"\x00")
		write(dir+"cgroup", fmt.Sprintf("0::/system.slice/job%d.service\n", p))
		write(dir+"limits", "Limit                     Soft Limit           Hard Limit           Units\nMax locked memory         8388608              8388608              bytes\n")
		for i := range 100 {
			o := user(uint32(tgid), uint32(tgid), "job", inspect.OwnerLive)
			if i%2 == 0 {
				s.MRs = append(s.MRs, inspect.MR{Object: o, MRN: uint32(p*100 + i), Len: 1 << 20})
			} else {
				s.QPs = append(s.QPs, inspect.QP{Object: o, LQPN: uint32(p*100 + i)})
			}
		}
	}
	fsys, err := sysfsmon.NewFS(filepath.Join(root, "sys"), filepath.Join(root, "proc"), sysfsmon.WithHostRoot(root))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		lookup Lookup
	}{{"direct", fsys.ProcessOwner}, {"cache", fsys.NewOwnerCache().ProcessOwner}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ps := Read(s, c.lookup); len(ps) != 10 || ps[0].VmPin != 4<<20 || ps[9].Cmdline != "job --rank 9" {
					b.Fatalf("read %d processes: %+v", len(ps), ps)
				}
			}
		})
	}
}
