package inspect

import (
	"context"
	"encoding/binary"
	"errors"
	"github.com/verbscope/verbscope/rdma"
	"io"
	"net/netip"
	"strconv"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

// TestABIValues pins enum values of include/uapi/rdma/rdma_netlink.h
// that were counted by hand from the header (the enums have no explicit
// numbers past the first few), as cross-checks of the iota blocks.
func TestABIValues(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"RDMA_NLDEV_ATTR_DEV_INDEX", int(AttrDevIndex), 1},
		{"RDMA_NLDEV_ATTR_DEV_NODE_TYPE", int(AttrDevNodeType), 14},
		{"RDMA_NLDEV_ATTR_RES_QP", int(AttrResQP), 19},
		{"RDMA_NLDEV_ATTR_RES_LQPN", int(AttrResLQPN), 21},
		{"RDMA_NLDEV_ATTR_RES_KERN_NAME", int(AttrResKernName), 29},
		{"RDMA_NLDEV_ATTR_RES_DST_ADDR", int(AttrResDstAddr), 34},
		{"RDMA_NLDEV_ATTR_RES_MRLEN", int(AttrResMRLen), 45},
		{"RDMA_NLDEV_ATTR_NDEV_NAME", int(AttrNdevName), 51},
		{"RDMA_NLDEV_ATTR_DRIVER_U64", int(AttrDriverU64), 59},
		{"RDMA_NLDEV_ATTR_RES_CTXN", int(AttrResCtxN), 64},
		{"RDMA_NLDEV_SYS_ATTR_NETNS_MODE", int(AttrSysNetnsMode), 66},
		{"RDMA_NLDEV_ATTR_STAT_MODE", int(AttrStatMode), 74},
		{"RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE", int(AttrStatHWCounterEntryValue), 83},
		{"RDMA_NLDEV_ATTR_DEV_DIM", int(AttrDevDIM), 84},
		{"RDMA_NLDEV_ATTR_RES_SRQN", int(AttrResSRQN), 90},
		{"RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK", int(AttrSysCopyOnFork), 93},
		{"RDMA_NLDEV_ATTR_DRIVER_DETAILS", int(AttrDriverDetails), 97},
		{"RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE", int(AttrNameAssignType), 101},
		{"RDMA_NLDEV_CMD_RES_SRQ_GET", int(CmdResSRQGet), 23},
		{"RDMA_NL_GET_TYPE(NLDEV, RES_QP_GET)", int(msgType(CmdResQPGet)), 5<<10 + 10},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.name, tc.got, tc.want)
		}
	}
	if len(attrNames) != int(AttrNameAssignType)+1 || attrNames[AttrResLQPN] != "RES_LQPN" ||
		attrNames[AttrSysCopyOnFork] != "SYS_ATTR_COPY_ON_FORK" || attrNames[AttrNameAssignType] != "NAME_ASSIGN_TYPE" {
		t.Errorf("attrNames is out of step with the constants: %d names", len(attrNames))
	}
}

var cmpOpts = cmp.Options{
	cmpopts.IgnoreFields(Object{}, "Attrs"),
	cmp.Comparer(func(a, b netip.AddrPort) bool { return a == b }),
}

// TestDecodeRecorded checks decoded values of replies recorded from the
// lab's kernel (6.1, rxe0) against what ibv_devinfo, `rdma link`, `rdma
// system` and `rdma resource show` printed there.
func TestDecodeRecorded(t *testing.T) {
	idle, err := replayConn(t, loadRecording(t, "idle")).Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	guid := idle.Devices[0].NodeGUID
	wantDev := []Device{{Index: 0, Name: "rxe0", Ports: 1, CapFlags: 0x01223c76, NodeGUID: guid, SysImageGUID: guid,
		NodeType: 1, Protocol: "roce"}}
	if diff := cmp.Diff(wantDev, idle.Devices, cmpopts.IgnoreFields(Device{}, "Attrs")); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	if guid == 0 || guid>>48 == 0 {
		t.Errorf("node GUID %#x does not look like rxe's MAC-derived EUI-64", guid)
	}
	wantPort := []Port{{DevName: "rxe0", Port: 1, State: 4, PhysState: 5, NetdevIndex: 3, Netdev: "veth0"}}
	if diff := cmp.Diff(wantPort, idle.Ports, cmpopts.IgnoreFields(Port{}, "Attrs")); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
	if idle.Ports[0].Attrs.Has(AttrLID) || idle.Ports[0].Attrs.Has(AttrCapFlags) {
		t.Errorf("a RoCE port got InfiniBand-only attributes: %+v", idle.Ports[0])
	}
	if diff := cmp.Diff(System{NetnsMode: 1, CopyOnFork: true}, idle.System, cmpopts.IgnoreFields(System{}, "Attrs")); diff != "" {
		t.Errorf("system (-want +got):\n%s", diff)
	}
	var names []string
	for _, c := range idle.PortCounters[0].Counters {
		names = append(names, c.Name)
	}
	wantNames := []string{"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request", "rcvd_rnr_err", "send_rnr_err",
		"rcvd_seq_err", "ack_deferred", "retry_exceeded_err", "retry_rnr_exceeded_err", "completer_retry_err", "send_err",
		"link_downed", "rdma_sends", "rdma_recvs"}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("rxe port counters (-rdma statistic show +got):\n%s", diff)
	}
	if diff := cmp.Diff([]PortCounterMode{{DevName: "rxe0", Port: 1, Mode: CounterModeNone}}, idle.CounterModes); diff != "" {
		t.Errorf("counter modes (-want +got):\n%s", diff)
	}
	if len(idle.QPCounters) != 0 || len(idle.Warnings) != 0 {
		t.Errorf("rxe has no per-QP counters and nothing failed: %+v %v", idle.QPCounters, idle.Warnings)
	}
	kern := Object{DevName: "rxe0", KernName: "ib_core", Comm: "ib_core", Owner: OwnerKernel}
	wantQPs := []QP{{Object: kern, Port: 1, LQPN: 1, Type: rdma.QPTypeGSI, State: rdma.QPStateRTS}}
	if diff := cmp.Diff(wantQPs, idle.QPs, cmpOpts); diff != "" {
		t.Errorf("idle QPs (-want +got):\n%s", diff)
	}
	wantCQs := []CQ{{Object: kern, CQN: 0, CQE: 1023, Users: 2, PollCtx: 2}}
	if diff := cmp.Diff(wantCQs, idle.CQs, cmpOpts); diff != "" {
		t.Errorf("idle CQs (-want +got):\n%s", diff)
	}
	if !idle.QPs[0].Kernel() || idle.QPs[0].HasPID() || idle.QPs[0].Attrs.Has(AttrResRQPN) || idle.QPs[0].Attrs.Has(AttrResPDN) {
		t.Errorf("GSI QP attributes: %+v", idle.QPs[0])
	}

	init, err := replayConn(t, loadRecording(t, "rc-init")).Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	user := Object{DevName: "rxe0", PID: 169, TGID: 169, Comm: "ibv_rc_pingpong", Owner: OwnerLive}
	wantQPs = []QP{{Object: user, Port: 1, LQPN: 17, Type: rdma.QPTypeRC, State: rdma.QPStateInit, PDN: 1}, wantQPs[0]}
	if diff := cmp.Diff(wantQPs, init.QPs, cmpOpts); diff != "" {
		t.Errorf("rc-init QPs (-want +got):\n%s", diff)
	}
	for _, a := range []Attr{AttrResRQPN, AttrResRQPSN, AttrResPathMigState, AttrResPDN, AttrResPID} {
		if !init.QPs[0].Attrs.Has(a) {
			t.Errorf("RC QP lacks %s", attrName(a))
		}
	}
	wantMRs := []MR{{Object: user, MRN: init.MRs[0].MRN, LKey: init.MRs[0].LKey, Len: 4096, PDN: 1}}
	if diff := cmp.Diff(wantMRs, init.MRs, cmpOpts); diff != "" {
		t.Errorf("rc-init MRs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Context{{Object: user}}, init.Contexts, cmpOpts); diff != "" {
		t.Errorf("rc-init contexts (-want +got):\n%s", diff)
	}

	srq, err := replayConn(t, loadRecording(t, "srq")).Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantSRQ := []SRQ{{Object: Object{DevName: "rxe0", PID: 192, TGID: 192, Comm: "ibv_srq_pingpon", Owner: OwnerLive}, PDN: 4, QPs: []QPRange{{20, 35}}}}
	if diff := cmp.Diff(wantSRQ, srq.SRQs, cmpOpts); diff != "" {
		t.Errorf("SRQs (-want +got):\n%s", diff)
	}

	rping, err := replayConn(t, loadRecording(t, "rping")).Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv, cli := Object{DevName: "rxe0", PID: 202, TGID: 202, Comm: "rping", Owner: OwnerLive}, Object{DevName: "rxe0", PID: 204, TGID: 204, Comm: "rping", Owner: OwnerLive}
	v4 := func(s string) SockAddr { return SockAddr{Family: afInet, Addr: netip.MustParseAddrPort(s)} }
	wantIDs := []CMID{
		{Object: srv, Port: 1, CMIDN: 0, State: 8, PS: PortSpaceTCP, Src: v4("10.0.0.1:7174"), Dst: v4("0.0.0.0:0")},
		{Object: cli, Port: 1, CMIDN: 1, LQPN: 36, QPType: rdma.QPTypeRC, State: 5, PS: PortSpaceTCP, Src: v4("10.0.0.1:58770"), Dst: v4("10.0.0.1:7174")},
		{Object: srv, Port: 1, CMIDN: 2, LQPN: 37, QPType: rdma.QPTypeRC, State: 5, PS: PortSpaceTCP, Src: v4("10.0.0.1:7174"), Dst: v4("10.0.0.1:58770")},
	}
	if diff := cmp.Diff(wantIDs, rping.CMIDs, cmpOpts); diff != "" {
		t.Errorf("cm_ids (-want +got):\n%s", diff)
	}
}

// attr builds one netlink attribute.
func attr(typ Attr, payload []byte) []byte {
	b := binary.NativeEndian.AppendUint16(nil, uint16(4+len(payload)))
	b = binary.NativeEndian.AppendUint16(b, uint16(typ))
	b = append(b, payload...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func u32b(v uint32) []byte { return binary.NativeEndian.AppendUint32(nil, v) }
func u64b(v uint64) []byte { return binary.NativeEndian.AppendUint64(nil, v) }
func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// qpMsg builds a QP dump message around one entry.
func qpMsg(entry []byte) []byte {
	return cat(attr(AttrDevIndex, u32b(0)), attr(AttrDevName, []byte("rxe0\x00")),
		attr(AttrResQP, attr(AttrResQPEntry, entry)))
}

var goodQPEntry = cat(attr(AttrPortIndex, u32b(1)), attr(AttrResLQPN, u32b(17)), attr(AttrResSQPSN, u32b(5)),
	attr(AttrResType, []byte{2}), attr(AttrResState, []byte{3}), attr(AttrResPID, u32b(1)))

// TestMalformed feeds broken replies to the decoders: each must give an
// error that wraps ErrMalformed, never panic, and never a half result
// without an error.
func TestMalformed(t *testing.T) {
	if _, _, err := decodeKindMsg(&qpKind, qpMsg(goodQPEntry), "", nil); err != nil {
		t.Fatalf("the good message fails: %v", err)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"truncated header", qpMsg(goodQPEntry)[:2]},
		{"attribute longer than the message", append(attr(AttrDevIndex, u32b(0))[:3:3], 0xff)},
		{"u32 of 2 bytes", qpMsg(cat(goodQPEntry, attr(AttrResRQPN, []byte{1, 2})))},
		{"u8 of 4 bytes", qpMsg(cat(goodQPEntry, attr(AttrResPathMigState, u32b(1))))},
		{"entry without lqpn", qpMsg(cat(attr(AttrResSQPSN, u32b(5)), attr(AttrResType, []byte{2}), attr(AttrResState, []byte{3})))},
		{"no device name", cat(attr(AttrDevIndex, u32b(0)), attr(AttrResQP, attr(AttrResQPEntry, goodQPEntry)))},
		{"wrong entry type", cat(attr(AttrDevIndex, u32b(0)), attr(AttrDevName, []byte("rxe0\x00")), attr(AttrResQP, attr(AttrResCQEntry, goodQPEntry)))},
		{"entry length 3", qpMsg([]byte{3, 0, 21, 0})},
		{"driver value without key", qpMsg(cat(goodQPEntry, attr(AttrDriver, attr(AttrDriverU32, u32b(1)))))},
		{"driver key without value", qpMsg(cat(goodQPEntry, attr(AttrDriver, attr(AttrDriverString, []byte("k\x00")))))},
		{"driver u64 of 4 bytes", qpMsg(cat(goodQPEntry, attr(AttrDriver, cat(attr(AttrDriverString, []byte("k\x00")), attr(AttrDriverU64, u32b(1))))))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := decodeKindMsg(&qpKind, tc.data, "", nil)
			if err == nil {
				t.Fatal("no error")
			}
			// Through a Conn, the error is wrapped and names the op.
			c := NewConn(nltest.Dial(fakeKernel(t, map[Command][][]byte{CmdGet: {idleDevice(t)}, CmdResQPGet: {tc.data}})))
			defer c.Close()
			_, err = c.QPs(Query{})
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("QPs: %v, want ErrMalformed", err)
			}
			t.Log(err)
		})
	}
	for name, fn := range map[string]func([]byte) error{
		"device":   func(b []byte) error { _, err := decodeDevice(b); return err },
		"port":     func(b []byte) error { _, err := decodePort(b); return err },
		"summary":  func(b []byte) error { _, err := decodeSummary(b); return err },
		"counters": func(b []byte) error { _, err := decodePortCounters(b); return err },
		"mode":     func(b []byte) error { _, err := decodeCounterMode(b); return err },
	} {
		if fn(attr(AttrDevIndex, u32b(0))) == nil {
			t.Errorf("%s: a reply with only a device index decoded", name)
		}
		if fn(attr(AttrDevIndex, []byte{1})) == nil {
			t.Errorf("%s: a 1-byte device index decoded", name)
		}
	}
	if _, err := decodeSockAddr([]byte{2, 0, 0}); err == nil {
		t.Error("a 3-byte AF_INET address decoded")
	}
	if _, err := decodeQPRanges(attr(AttrResQPEntry, cat(attr(AttrMinRange, u32b(9)), attr(AttrMaxRange, u32b(3))))); err == nil {
		t.Error("a backwards QP range decoded")
	}
	if _, err := decodeSystem(attr(AttrSysCopyOnFork, u32b(1))); err == nil {
		t.Error("a 4-byte copy-on-fork decoded")
	}
}

// idleDevice returns the recorded device reply of rxe0.
func idleDevice(t *testing.T) []byte {
	rec := loadRecording(t, "idle")
	var m netlink.Message
	if err := m.UnmarshalBinary(rec.Exchanges[0].Replies[0]); err != nil {
		t.Fatal(err)
	}
	return m.Data
}

// fakeKernel answers each command with the given message payloads (one
// message each), recording nothing; for requests it has no answer for it
// returns EOPNOTSUPP.
func fakeKernel(t *testing.T, replies map[Command][][]byte) nltest.Func {
	return func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) == 0 {
			return nil, io.EOF
		}
		req := reqs[0]
		cmd := Command(uint16(req.Header.Type) & 0x3ff)
		dump := req.Header.Flags&netlink.Dump == netlink.Dump
		data, ok := replies[cmd]
		if !ok {
			return errReply(syscall.EOPNOTSUPP, req), nil
		}
		var out []netlink.Message
		for _, d := range data {
			m := netlink.Message{Header: netlink.Header{Type: req.Header.Type, Sequence: req.Header.Sequence, PID: nltest.PID}, Data: d}
			if dump {
				m.Header.Flags = netlink.Multi
			}
			out = append(out, m)
		}
		if dump {
			out = append(out, netlink.Message{Header: netlink.Header{Type: netlink.Done, Flags: netlink.Multi, Sequence: req.Header.Sequence, PID: nltest.PID}, Data: u32b(0)})
		}
		return out, nil
	}
}

// errReply is the kernel's NLMSG_ERROR answer: the negative errno and
// the request's header and payload (netlink_ack).
func errReply(errno syscall.Errno, req netlink.Message) []netlink.Message {
	hdr, _ := req.MarshalBinary()
	return []netlink.Message{{
		Header: netlink.Header{Type: netlink.Error, Sequence: req.Header.Sequence, PID: nltest.PID},
		Data:   append(binary.NativeEndian.AppendUint32(nil, uint32(-int32(errno))), hdr...),
	}}
}

// TestRequests checks what goes to the kernel: the commands, flags and
// attributes iproute2 sends for the same question (rdma/res.c
// _res_send_msg, rdma/stat.c, rdma/sys.c), minus NLM_F_ACK.
func TestRequests(t *testing.T) {
	var got []string
	c := NewConn(nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) == 0 {
			return nil, io.EOF
		}
		got = append(got, describeRequest(t, reqs[0]))
		return fakeKernel(t, map[Command][][]byte{CmdGet: {idleDevice(t)}, CmdSysGet: {nil}})(reqs)
	}))
	defer c.Close()
	c.QPs(Query{})
	c.QPs(Query{Dev: "rxe0", Port: 1, DriverDetails: true})
	c.CQs(Query{})
	c.CMIDs(Query{Port: 1})
	c.Summary("")
	c.PortCounters("")
	c.CounterModes("")
	c.System()
	want := []string{
		"GET dump", "RES_QP_GET dump DEV_INDEX=0",
		"GET dump", "RES_QP_GET dump DEV_INDEX=0 PORT_INDEX=1 DRIVER_DETAILS=u8:1",
		"GET dump", "RES_CQ_GET dump DEV_INDEX=0",
		"GET dump", "RES_CM_ID_GET dump DEV_INDEX=0 PORT_INDEX=1",
		"RES_GET dump",
		"GET dump", "STAT_GET DEV_INDEX=0 PORT_INDEX=1",
		"GET dump", "STAT_GET DEV_INDEX=0 PORT_INDEX=1 STAT_MODE=2 STAT_RES=19",
		"SYS_GET",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

var cmdNames = map[Command]string{CmdGet: "GET", CmdResQPGet: "RES_QP_GET", CmdResCQGet: "RES_CQ_GET",
	CmdResCMIDGet: "RES_CM_ID_GET", CmdResGet: "RES_GET", CmdStatGet: "STAT_GET", CmdSysGet: "SYS_GET"}

var reqAttrNames = map[Attr]string{AttrDevIndex: "DEV_INDEX", AttrPortIndex: "PORT_INDEX", AttrDriverDetails: "DRIVER_DETAILS",
	AttrStatMode: "STAT_MODE", AttrStatRes: "STAT_RES"}

func describeRequest(t *testing.T, m netlink.Message) string {
	t.Helper()
	if uint16(m.Header.Type)>>10 != clientNLDEV {
		t.Fatalf("request type %#x is not nldev", uint16(m.Header.Type))
	}
	s := cmdNames[Command(uint16(m.Header.Type)&0x3ff)]
	if m.Header.Flags&netlink.Request == 0 || m.Header.Flags&netlink.Acknowledge != 0 {
		t.Errorf("%s: flags %v", s, m.Header.Flags)
	}
	if m.Header.Flags&netlink.Dump == netlink.Dump {
		s += " dump"
	}
	it := newAttrIter(m.Data)
	for it.next() {
		if len(it.val) == 1 {
			s += " " + reqAttrNames[it.typ] + "=u8:" + itoa(uint64(it.u8()))
		} else {
			s += " " + reqAttrNames[it.typ] + "=" + itoa(uint64(it.u32()))
		}
	}
	if it.err != nil {
		t.Fatal(it.err)
	}
	return s
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

// TestKernelErrors checks that errno answers keep their errno and get a
// sentinel where one applies.
func TestKernelErrors(t *testing.T) {
	c := NewConn(nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) == 0 {
			return nil, io.EOF
		}
		return errReply(syscall.EPERM, reqs[0]), nil
	}))
	_, err := c.Devices()
	if !errors.Is(err, syscall.EPERM) {
		t.Errorf("EPERM lost: %v", err)
	}
	c.Close()
	if _, err := c.Devices(); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}

	// A device without counters is no error for PortCounters, and a
	// named device that does not exist is ErrNoDevice.
	c = NewConn(nltest.Dial(fakeKernel(t, map[Command][][]byte{CmdGet: {idleDevice(t)}})))
	defer c.Close()
	if pcs, err := c.PortCounters(""); err != nil || len(pcs) != 0 {
		t.Errorf("PortCounters without counters: %v %v", pcs, err)
	}
	if _, err := c.QPs(Query{Dev: "mlx5_9"}); !errors.Is(err, ErrNoDevice) {
		t.Errorf("unknown device: %v", err)
	}
	// A snapshot survives requests the device does not support.
	s, err := c.Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	if len(s.Warnings) == 0 || !errors.Is(s.Warnings[0], ErrUnsupported) {
		t.Errorf("Snapshot warnings: %v", s.Warnings)
	}
}

// TestDial: where the kernel has no RDMA (this project's build hosts),
// Dial says so with ErrNoRDMA and EPROTONOSUPPORT; where it has, Dial and
// a device dump work.
func TestDial(t *testing.T) {
	c, err := Dial()
	if err != nil {
		if !errors.Is(err, ErrNoRDMA) || !errors.Is(err, syscall.EPROTONOSUPPORT) {
			t.Fatalf("Dial: %v, want ErrNoRDMA and EPROTONOSUPPORT", err)
		}
		return
	}
	defer c.Close()
	if _, err := c.Devices(); err != nil {
		t.Fatalf("Devices on a kernel with RDMA netlink: %v", err)
	}
}

// TestEveryAttributeDecoded checks that the recorded replies of the lab's
// kernel carry no attribute these decoders skip: for every object, each
// attribute the kernel sent is one its type decodes.
func TestEveryAttributeDecoded(t *testing.T) {
	owner := []Attr{AttrResPID, AttrResKernName, AttrDriver}
	decoded := map[string][]Attr{
		"device": {AttrDevIndex, AttrDevName, AttrPortIndex, AttrCapFlags, AttrFWVersion, AttrNodeGUID, AttrSysImageGUID,
			AttrDevNodeType, AttrDevDIM, AttrDevProtocol, AttrDevType, AttrParentName, AttrNameAssignType},
		"port": {AttrDevIndex, AttrDevName, AttrPortIndex, AttrCapFlags, AttrSubnetPrefix, AttrLID, AttrSMLID, AttrLMC,
			AttrPortState, AttrPortPhysState, AttrNdevIndex, AttrNdevName},
		"system": {AttrSysNetnsMode, AttrSysCopyOnFork, AttrSysPrivilegedQKeyMode},
		"qp": append([]Attr{AttrPortIndex, AttrResLQPN, AttrResRQPN, AttrResRQPSN, AttrResSQPSN, AttrResPathMigState,
			AttrResType, AttrResState, AttrResPDN, AttrResSubtype}, owner...),
		"cq":  append([]Attr{AttrResCQN, AttrResCQE, AttrResUseCnt, AttrResPollCtx, AttrDevDIM, AttrResCtxN}, owner...),
		"mr":  append([]Attr{AttrResMRN, AttrResRKey, AttrResLKey, AttrResIOVA, AttrResMRLen, AttrResPDN}, owner...),
		"pd":  append([]Attr{AttrResPDN, AttrResLocalDMALKey, AttrResUnsafeGlobalRKey, AttrResUseCnt, AttrResCtxN}, owner...),
		"ctx": append([]Attr{AttrResCtxN}, owner...),
		"srq": append([]Attr{AttrResSRQN, AttrResType, AttrResPDN, AttrResCQN, AttrResQP}, owner...),
		"cm_id": append([]Attr{AttrPortIndex, AttrResCMIDN, AttrResLQPN, AttrResType, AttrResState, AttrResPS,
			AttrResSrcAddr, AttrResDstAddr}, owner...),
	}
	check := func(sc, what string, got AttrSet) {
		var known AttrSet
		for _, a := range decoded[what] {
			known.Add(a)
		}
		for a := Attr(0); a < 256; a++ {
			if got.Has(a) && !known.Has(a) {
				t.Errorf("%s: the kernel sent %s for a %s, which is not decoded", sc, attrName(a), what)
			}
		}
	}
	seen := map[string]int{}
	for _, sc := range recordedScenarios {
		s, err := replayConn(t, loadRecording(t, sc)).Snapshot(context.Background(), SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range s.Devices {
			check(sc, "device", d.Attrs)
			seen["device"]++
		}
		for _, p := range s.Ports {
			check(sc, "port", p.Attrs)
			seen["port"]++
		}
		check(sc, "system", s.System.Attrs)
		each := func(what string, o *Object) { check(sc, what, o.Attrs); seen[what]++ }
		for i := range s.QPs {
			each("qp", &s.QPs[i].Object)
		}
		for i := range s.CQs {
			each("cq", &s.CQs[i].Object)
		}
		for i := range s.MRs {
			each("mr", &s.MRs[i].Object)
		}
		for i := range s.PDs {
			each("pd", &s.PDs[i].Object)
		}
		for i := range s.Contexts {
			each("ctx", &s.Contexts[i].Object)
		}
		for i := range s.SRQs {
			each("srq", &s.SRQs[i].Object)
		}
		for i := range s.CMIDs {
			each("cm_id", &s.CMIDs[i].Object)
		}
	}
	for what := range decoded {
		if what != "system" && seen[what] == 0 {
			t.Errorf("no recorded %s: the recordings do not cover it", what)
		}
	}
}
