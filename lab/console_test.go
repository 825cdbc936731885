package lab

import "testing"

func TestParseMarker(t *testing.T) {
	for _, tc := range []struct {
		line   string
		before string
		m      marker
		ok     bool
	}{
		{"<<<VERBSCOPE-READY>>>", "", marker{Kind: markerReady}, true},
		{"<<<VERBSCOPE-EXIT 0>>>", "", marker{Kind: markerExit}, true},
		{"<<<VERBSCOPE-EXIT 3>>>", "", marker{Kind: markerExit, Code: 3}, true},
		{"no newline at end<<<VERBSCOPE-EXIT 1>>>", "no newline at end", marker{Kind: markerExit, Code: 1}, true},
		{"<<<VERBSCOPE-FAIL insmod rdma_rxe: Unknown symbol>>>", "", marker{Kind: markerFail, Reason: "insmod rdma_rxe: Unknown symbol"}, true},
		{"<<<VERBSCOPE-PROBE>>>", "", marker{Kind: markerProbe}, true},
		{"<<<VERBSCOPE-KERNEL watchdog: BUG: soft lockup - CPU#0 stuck for 44s! [cli.test:200]>>>", "", marker{Kind: markerKernel, Reason: "watchdog: BUG: soft lockup - CPU#0 stuck for 44s! [cli.test:200]"}, true},
		{"<<<VERBSCOPE-EXIT x>>>", "<<<VERBSCOPE-EXIT x>>>", marker{}, false},
		{"<<<VERBSCOPE-EXIT 256>>>", "<<<VERBSCOPE-EXIT 256>>>", marker{}, false},
		{"<<<VERBSCOPE-EXIT -1>>>", "<<<VERBSCOPE-EXIT -1>>>", marker{}, false},
		{"<<<VERBSCOPE-EXIT 0", "<<<VERBSCOPE-EXIT 0", marker{}, false},
		{"<<<VERBSCOPE-WHAT>>>", "<<<VERBSCOPE-WHAT>>>", marker{}, false},
		{"plain output", "plain output", marker{}, false},
	} {
		before, m, ok := parseMarker(tc.line)
		if before != tc.before || m != tc.m || ok != tc.ok {
			t.Errorf("ParseMarker(%q) = %q, %+v, %v; want %q, %+v, %v", tc.line, before, m, ok, tc.before, tc.m, tc.ok)
		}
	}
}

func TestKernelTrouble(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"[   96.526188] watchdog: BUG: soft lockup - CPU#0 stuck for 44s! [cli.test:200]", true},
		{"[ 1132.5] INFO: task kworker/0:1:12 blocked for more than 120 seconds.", true},
		{"[    3.000001] sh invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0", true},
		{"[    3.000001] rdma_rxe: loaded", false},
		{"--- FAIL: TestBUG: (0.00s)", false},
		{"BUG: in a test's own output, without the kernel's time stamp", false},
	} {
		if got := kernelTrouble(tc.line); got != tc.want {
			t.Errorf("KernelTrouble(%q) = %v, want %v", tc.line, got, tc.want)
		}
	}
}

func TestCleanLine(t *testing.T) {
	if got := cleanLine("PASS\r"); got != "PASS" {
		t.Errorf("got %q", got)
	}
}

func FuzzParseMarker(f *testing.F) {
	f.Add("<<<VERBSCOPE-EXIT 12>>>")
	f.Add("x<<<VERBSCOPE-FAIL why>>>y")
	f.Fuzz(func(t *testing.T, s string) {
		before, m, ok := parseMarker(s)
		if !ok && before != s {
			t.Fatalf("no marker, but the line changed: %q -> %q", s, before)
		}
		if ok && m.Kind == markerExit && (m.Code < 0 || m.Code > 255) {
			t.Fatalf("exit code %d out of range", m.Code)
		}
		if len(before) > len(s) {
			t.Fatal("before longer than the line")
		}
	})
}
