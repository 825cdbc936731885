package verbs

import (
	"errors"
	"github.com/verbscope/verbscope/rdma"
	"strings"
	"syscall"
	"testing"
)

// fakeMR is an MR for checks that never reach the library.
func fakeMR(name string, size int) *MR {
	return &MR{buf: make([]byte, size), obj: &object{kind: "MR", name: name}}
}

// TestPostChecksBeforeTheLibrary covers what a post refuses before the library sees it;
// the lab tests cover what the library and the kernel refuse.
func TestPostChecksBeforeTheLibrary(t *testing.T) {
	mr := fakeMR("MR lkey 0x1 (64 bytes)", 64)
	closed := fakeMR("MR lkey 0x2 (64 bytes)", 64)
	closed.obj.closed = true
	qp := &QP{typ: rdma.QPTypeRC, num: 17, cap: QPCap{MaxSendSGE: 2, MaxInlineData: 16}}
	ud := &QP{typ: rdma.QPTypeUD, num: 18, cap: QPCap{MaxSendSGE: 1}}
	for _, tc := range []struct {
		name  string
		qp    *QP
		wr    SendWR
		errno error
		want  string
	}{
		{"fits", qp, SendWR{Opcode: rdma.WRSend, SGEs: []SGE{{MR: mr, Offset: 60, Length: 4}}}, nil, ""},
		{"one byte past the end", qp, SendWR{Opcode: rdma.WRSend, SGEs: []SGE{{MR: mr, Offset: 61, Length: 4}}}, syscall.EINVAL, "run past the end of MR lkey 0x1"},
		{"offset overflow", qp, SendWR{Opcode: rdma.WRSend, SGEs: []SGE{{MR: mr, Offset: ^uint64(0), Length: 2}}}, syscall.EINVAL, "past the end"},
		{"closed MR", qp, SendWR{Opcode: rdma.WRSend, SGEs: []SGE{{MR: closed, Length: 1}}}, ErrClosed, "was closed"},
		{"no MR", qp, SendWR{Opcode: rdma.WRSend, SGEs: []SGE{{Length: 1}}}, syscall.EINVAL, "names no memory region"},
		{"too many SGEs", qp, SendWR{Opcode: rdma.WRSend, SGEs: make([]SGE, 3)}, syscall.EINVAL, "max_send_sge 2"},
		{"inline too long", qp, SendWR{Opcode: rdma.WRSend, Flags: rdma.SendInline, SGEs: []SGE{{MR: mr, Length: 17}}}, syscall.EINVAL, "max_inline_data is 16"},
		{"atomic of 4 bytes", qp, SendWR{Opcode: rdma.WRAtomicFetchAndAdd, SGEs: []SGE{{MR: mr, Length: 4}}}, syscall.EINVAL, "8-byte SGE"},
		{"unaligned atomic", qp, SendWR{Opcode: rdma.WRAtomicCmpAndSwp, RemoteAddr: 0x1004, SGEs: []SGE{{MR: mr, Length: 8}}}, syscall.EINVAL, "0x1004 is not 8-byte aligned"},
		{"bind without Bind", qp, SendWR{Opcode: rdma.WRBindMW}, syscall.EINVAL, "needs SendWR.Bind"},
		{"UD without AH", ud, SendWR{Opcode: rdma.WRSend, SGEs: []SGE{{MR: mr, Length: 8}}}, syscall.EINVAL, "address handle"},
		{"UD write needs no AH here", ud, SendWR{Opcode: rdma.WRRDMAWrite, SGEs: []SGE{{MR: mr, Length: 8}}}, nil, ""},
	} {
		err := tc.qp.checkSend(3, &tc.wr)
		if tc.errno == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var pe *PostError
		if !errors.As(err, &pe) || pe.Index != 3 || pe.Posted != 0 || !errors.Is(err, tc.errno) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a PostError for request 3 wrapping %v and saying %q", tc.name, err, tc.errno, tc.want)
		}
	}
}

func TestCheckBind(t *testing.T) {
	pd := &PD{}
	mr := fakeMR("MR lkey 0x1 (4096 bytes)", 4096)
	mr.pd, mr.access = pd, rdma.AccessLocalWrite|rdma.AccessMWBind
	plain := fakeMR("MR lkey 0x2 (4096 bytes)", 4096)
	plain.pd = pd
	mw := &MW{pd: pd, typ: MWType2}
	other := &MW{pd: &PD{}, typ: MWType2}
	for _, tc := range []struct {
		b    MWBind
		want string
	}{
		{MWBind{MW: mw, MR: mr, Offset: 1024, Length: 3072}, ""},
		{MWBind{MR: mr}, "no memory window"},
		{MWBind{MW: mw}, "no memory region"},
		{MWBind{MW: mw, MR: plain, Length: 1}, "without MW_BIND"},
		{MWBind{MW: mw, MR: mr, Offset: 1024, Length: 3073}, "does not fit"},
		{MWBind{MW: other, MR: mr, Length: 1}, "different PDs"},
	} {
		err := checkBind("ibv_bind_mw", &tc.b)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.b, err, tc.want)
		}
	}
	if got := incRKey(0x12345ff); got != 0x1234500 {
		t.Errorf("incRKey wraps the key byte only: %#x", got)
	}
}

// Every error status explains itself.
func TestWCStatusHints(t *testing.T) {
	for s := rdma.WCLocLenErr; s <= rdma.WCGeneralErr; s++ {
		switch s {
		case rdma.WCLocEECOpErr, rdma.WCLocRDDViolErr, rdma.WCRemInvRdReqErr, rdma.WCInvEECNErr, rdma.WCInvEECStateErr:
			continue // reliable datagram only: no Linux provider reports them
		}
		if s.Hint() == "" {
			t.Errorf("%s has no hint", s)
		}
		if err := (WC{Status: s, WRID: 7, QPNum: 9}).Err(); err == nil || !strings.Contains(err.Error(), s.String()) {
			t.Errorf("WC.Err for %s: %v", s, err)
		}
	}
	if (WC{}).Err() != nil {
		t.Error("a successful completion has no error")
	}
}

// The registry forgets a wrapper the program dropped.
func TestRegistryIsWeak(t *testing.T) {
	var r registry
	keep := &CQ{}
	add(&r, 1, keep)
	add(&r, 2, &CQ{})
	if lookup[CQ](&r, 1) != keep {
		t.Error("lookup lost a live wrapper")
	}
	if lookup[QP](&r, 1) != nil {
		t.Error("lookup returned a CQ as a QP")
	}
	r.remove(1)
	if lookup[CQ](&r, 1) != nil || lookup[CQ](&r, 0) != nil {
		t.Error("lookup after remove")
	}
}
