package lab

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLdd(t *testing.T) {
	out := "\tlinux-vdso.so.1 (0x00007fe196455000)\n" +
		"\tlibibverbs.so.1 => /lib/x86_64-linux-gnu/libibverbs.so.1 (0x00007fe19641b000)\n" +
		"\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007fe196239000)\n" +
		"\tlibmissing.so.9 => not found\n" +
		"\t/lib64/ld-linux-x86-64.so.2 (0x00007fe196457000)\n"
	libs, missing := parseLdd(out)
	if diff := cmp.Diff([]string{"/lib/x86_64-linux-gnu/libibverbs.so.1", "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"}, libs); diff != "" {
		t.Errorf("libs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"libmissing.so.9"}, missing); diff != "" {
		t.Errorf("missing (-want +got):\n%s", diff)
	}
}

func TestImagePath(t *testing.T) {
	for in, want := range map[string]string{
		"/lib/x86_64-linux-gnu/libc.so.6":    "usr/lib/x86_64-linux-gnu/libc.so.6",
		"/lib64/ld-linux-x86-64.so.2":        "usr/lib64/ld-linux-x86-64.so.2",
		"/usr/bin/ibv_devinfo":               "usr/bin/ibv_devinfo",
		"/usr/sbin/ip":                       "usr/sbin/ip",
		"/lib/terminfo/x/xterm":              "usr/lib/terminfo/x/xterm",
		"/usr/lib/../lib/x86_64-linux-gnu/a": "usr/lib/x86_64-linux-gnu/a",
	} {
		if got := imagePath(in); got != want {
			t.Errorf("imagePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzParseLdd(f *testing.F) {
	f.Add("\tlibc.so.6 => /lib/libc.so.6 (0x1)\n\t/lib64/ld.so (0x2)\n")
	f.Add("libx => not found\n=>\n => \n")
	f.Fuzz(func(t *testing.T, s string) {
		libs, _ := parseLdd(s)
		for _, l := range libs {
			if len(l) == 0 || l[0] != '/' {
				t.Fatalf("library path %q is not absolute", l)
			}
		}
	})
}
