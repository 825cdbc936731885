package learn

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

func TestEvaluate(t *testing.T) {
	f := newFake()
	s := newSession(f, nil, nil)
	defer s.Close()
	ctx := context.Background()
	for _, l := range []string{"mk ctx ctx1", "mk pd pd1 ctx1", "mk qp qp1 pd1", "set qp1 RTS", "poll cq1 qp2 RECV SUCCESS PING", "poll cq1 qp1 SEND SUCCESS -",
		"doctor memlock warn", "doctor memlock pass", "doctor irqs n/a", "why qp1 rnr"} {
		if _, err := s.Exec(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	kernelERR := &KernelView{QPStates: map[uint32]rdma.QPState{3: rdma.QPStateErr}, Counts: map[rdma.Kind]int{rdma.KindPD: 1, rdma.KindQP: 2},
		Others: map[string]map[rdma.Kind]int{"ibv_rc_pingpong": {rdma.KindQP: 1}}}
	for _, tc := range []struct {
		check string
		kv    *KernelView
		ok    bool
		got   string
	}{
		{"expect qp1 state=rts type=RC parent=pd1", nil, true, "qp1: state=RTS type=RC parent=pd1"},
		{"expect qp1 state=RTS", kernelERR, false, "qp1: state=ERR"},
		{"expect qp1 state=ERR", kernelERR, true, "qp1: state=ERR"},
		{"expect qp9 state=RTS", nil, false, "there is no qp9 (yet)"},
		{"expect qp9 gone", nil, true, "no qp9"},
		{"expect pd1 gone", nil, false, "pd1 still exists"},
		{"expect object pd count=1", kernelERR, true, "1 pd in the session, 1 in the kernel's restrack"},
		{"expect object qp count=1", kernelERR, false, "1 qp in the session, 2 in the kernel's restrack"},
		{"expect object qp count=1", nil, true, "1 qp in the session"},
		{"expect object ch count=0", kernelERR, true, "0 ch in the session"},
		{"expect cq1 completion opcode=RECV status=success data=PING qp=qp2", nil, true, "1 matching of 2 completion(s) polled from cq1 (last: SEND SUCCESS)"},
		{"expect cq1 completion status=success count=2", nil, true, "2 matching of 2 completion(s) polled from cq1 (last: SEND SUCCESS)"},
		{"expect cq1 completion status=WR_FLUSH_ERR", nil, false, "0 matching of 2 completion(s) polled from cq1 (last: SEND SUCCESS)"},
		{"expect cq2 completion", nil, false, "0 matching of 0 completion(s) polled from cq2"},
		{"expect refusal", nil, false, "the last command was not refused"},
		{"expect qp1 state=RTR|RTS", nil, true, "qp1: state=RTS"},
		{"expect qp1 state=INIT|RTR", nil, false, "qp1: state=RTS"},
		{"expect object qp count=1 owner=ibv_rc_pingpong", kernelERR, true, "1 qp of processes called ibv_rc_pingpong in the kernel's restrack"},
		{"expect object qp count=0 owner=ibv_rc_pingpong", kernelERR, false, "1 qp of processes called ibv_rc_pingpong in the kernel's restrack"},
		{"expect object mr count=0 owner=ibv_rc_pingpong", kernelERR, true, "0 mr of processes called ibv_rc_pingpong in the kernel's restrack"},
		{"expect object qp count=0 owner=ibv_rc_pingpong", nil, false, "the kernel's objects were not read"},
		{"expect object ah count=0 owner=ibv_rc_pingpong", kernelERR, false, "the kernel does not list other processes' ah objects (only ctx pd cq qp mr)"},
		{"expect doctor memlock", nil, true, "doctor's memlock check said pass"},
		{"expect doctor memlock verdict=pass|warn", nil, true, "doctor's memlock check said pass"},
		{"expect doctor memlock verdict=warn", nil, false, "doctor's memlock check said pass"},
		{"expect doctor irqs verdict=n/a", nil, true, "doctor's irqs check said n/a"},
		{"expect doctor gids", nil, false, "doctor has not run its gids check in this lesson (`doctor gids`)"},
		{"expect qp1 verdict=rnr", nil, true, "qp1: verdict=rnr"},
		{"expect qp1 verdict=peer_gone|no_response", nil, false, "qp1: verdict=rnr"},
		{"expect qp1 state=RTS verdict=rnr evidence=rcvd_rnr_err", nil, true, "qp1: state=RTS verdict=rnr evidence=qp1 rnr: while rcvd_rnr_err rose"},
		{"expect qp1 evidence=completer_retry_err", nil, false, "qp1: evidence=qp1 rnr: while rcvd_rnr_err rose"},
		{"expect pd1 verdict=none", nil, false, "`why pd1` has not run in this lesson"},
	} {
		c, err := parseCheck(tc.check)
		if err != nil {
			t.Fatal(err)
		}
		outs := evaluateAll([]Check{c}, f.State(), &s.Seen, tc.kv)
		if outs[0].OK != tc.ok || outs[0].Got != tc.got {
			t.Errorf("%s: got (%v, %q), want (%v, %q)", tc.check, outs[0].OK, outs[0].Got, tc.ok, tc.got)
		}
	}
	s.Exec(ctx, "modify qp1 rtr")
	for check, ok := range map[string]bool{"expect refusal": true, "expect refusal mentions=WRONG": true, "expect refusal mentions=RTR": true, `expect refusal mentions="other thing"`: true, "expect refusal mentions=EBUSY": false} {
		c, _ := parseCheck(check)
		if got := evaluateAll([]Check{c}, f.State(), &s.Seen, nil)[0]; got.OK != ok {
			t.Errorf("%s after a refusal: %v (%s), want %v", check, got.OK, got.Got, ok)
		}
	}
}

// Async events reach the checks through the session's watcher, and
// RunCheck judges a step again while the device is still at work.
func TestEventChecks(t *testing.T) {
	src := "# Events\nIntro.\n## Overrun\nText.\n```solution\nmk cq cq2\nevent CQ_ERR cq2\n```\n```check\nexpect event CQ_ERR on=cq2\n```\n"
	l, err := parse("04-events.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := RunCheck(context.Background(), []Lesson{l}, CheckOptions{NewEngine: func() front.Engine { return newFake() }, Out: &out, Settle: 5 * time.Second}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	c, _ := parseCheck("expect event QP_FATAL")
	s := newSession(newFake(), nil, nil)
	s.Exec(context.Background(), "event CQ_ERR cq2")
	s.Close()
	if got := evaluateAll([]Check{c}, s.Engine.State(), &s.Seen, nil)[0]; got.OK || got.Got != "no async event yet" {
		t.Errorf("before judging: %+v", got)
	}
	s.Judge(Step{})
	if got := evaluateAll([]Check{c}, s.Engine.State(), &s.Seen, nil)[0]; got.OK || got.Got != "async events so far: CQ_ERR" {
		t.Errorf("a QP_FATAL check after a CQ_ERR: %+v", got)
	}
}

func TestExpand(t *testing.T) {
	src := "# Talk\nTo {ip}.\n```background\nprog -g {gid_index}\n```\n## Dial\nDial {ip}.\n```solution\ndial qp1 {ip}:1\n```\n```check\nexpect qp1\n```\n"
	l, err := parse("09-talk.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := Expand([]Lesson{l}, map[string]string{"ip": "10.0.0.1", "gid_index": "1"})[0]
	if got.Intro != "To 10.0.0.1." || got.Background[0] != "prog -g 1" || got.Steps[0].Text != "Dial 10.0.0.1." || got.Steps[0].Solution[0].Text != "dial qp1 10.0.0.1:1" || got.Skip != "" {
		t.Errorf("expanded: %+v", got)
	}
	if l.Steps[0].Text != "Dial {ip}." {
		t.Error("Expand changed the lesson it was given")
	}
	skipped := Expand([]Lesson{l}, map[string]string{"ip": "10.0.0.1"})[0]
	if !strings.Contains(unmet(skipped), "this host's gid_index") {
		t.Errorf("a missing value: %q", unmet(skipped))
	}
}

// The kernel's view counts the learner's objects apart, other
// processes' by their name, and the kernel's own objects not at all.
func TestKernelViewAdd(t *testing.T) {
	kv := &KernelView{Counts: map[rdma.Kind]int{}, Others: map[string]map[rdma.Kind]int{}}
	mine := func(o *inspect.Object) bool { return o.TGID == 4242 }
	var kern inspect.Object
	kern.Attrs.Add(inspect.AttrResKernName)
	kern.Comm = "ib_core"
	for _, o := range []inspect.Object{
		{PID: 4243, TGID: 4242, Comm: "verbscope"},
		{PID: 77, TGID: 77, Comm: "ibv_rc_pingpong"},
		{PID: 78, TGID: 78, Comm: "ibv_rc_pingpong"},
		{PID: 79, TGID: 79, Comm: "verbscope"},
		kern,
	} {
		kv.add(rdma.KindQP, &o, mine)
	}
	want := &KernelView{Counts: map[rdma.Kind]int{rdma.KindQP: 1},
		Others: map[string]map[rdma.Kind]int{"ibv_rc_pingpong": {rdma.KindQP: 2}, "verbscope": {rdma.KindQP: 1}}}
	if d := cmp.Diff(want, kv); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
