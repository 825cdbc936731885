//go:build !linux || !cgo

package verbs

import (
	"os"
	"sync"
)

// Backend names the verbs implementation this build uses: none, as
// there is no libibverbs (the rdma-core library behind verbs.h).
const Backend = "none (built without cgo/libibverbs)"

// ctxHandle is empty: a build without libibverbs never opens a device,
// so none of the handles below is ever created; their methods exist so
// the public API is the same in every build.
type ctxHandle struct{}

func unsupported(op string) error {
	return &Error{Op: op, Err: ErrUnsupported, Hint: "this verbscope was built without libibverbs (CGO_ENABLED=0 or not Linux); rebuild with cgo and libibverbs-dev"}
}

func listDevices() ([]DeviceInfo, error) { return nil, unsupported("ibv_get_device_list") }

func openDevice(string) (*ctxHandle, DeviceInfo, error) {
	return nil, DeviceInfo{}, unsupported("ibv_open_device")
}

func (*ctxHandle) numCompVectors() int { return 0 }
func (*ctxHandle) close() error        { return nil }
func (*ctxHandle) queryDevice() (DeviceAttr, error) {
	return DeviceAttr{}, unsupported("ibv_query_device")
}
func (*ctxHandle) queryPort(int) (PortAttr, error) { return PortAttr{}, unsupported("ibv_query_port") }
func (*ctxHandle) queryGID(int, int) (GIDEntry, error) {
	return GIDEntry{}, unsupported("ibv_query_gid_ex")
}
func (*ctxHandle) gidTable() ([]GIDEntry, error) { return nil, unsupported("ibv_query_gid_table") }
func (*ctxHandle) asyncFile() (*os.File, error)  { return nil, unsupported("ibv_get_async_event") }
func (*ctxHandle) getAsyncEvent(*registry) (AsyncEvent, error) {
	return AsyncEvent{}, unsupported("ibv_get_async_event")
}

type (
	pdHandle   struct{}
	cqHandle   struct{}
	qpHandle   struct{}
	mrHandle   struct{}
	mwHandle   struct{}
	ahHandle   struct{}
	srqHandle  struct{}
	chanHandle struct {
		waitMu sync.Mutex
		file   *os.File
	}
)

func (*ctxHandle) allocPD() (*pdHandle, error) { return nil, unsupported("ibv_alloc_pd") }
func (*pdHandle) dealloc() error               { return unsupported("ibv_dealloc_pd") }
func (*ctxHandle) createCompChannel() (*chanHandle, error) {
	return nil, unsupported("ibv_create_comp_channel")
}
func (*chanHandle) destroy() error                  { return unsupported("ibv_destroy_comp_channel") }
func (*chanHandle) fd() int                         { return -1 }
func (*chanHandle) getEvent(*registry) (*CQ, error) { return nil, unsupported("ibv_get_cq_event") }
func (*ctxHandle) createCQ(int, *chanHandle, int) (*cqHandle, int, error) {
	return nil, 0, unsupported("ibv_create_cq")
}
func (*cqHandle) destroy() error              { return unsupported("ibv_destroy_cq") }
func (*cqHandle) addr() uintptr               { return 0 }
func (*cqHandle) poll([]WC) (int, error)      { return 0, unsupported("ibv_poll_cq") }
func (*cqHandle) spin([]WC, int) (int, error) { return 0, unsupported("ibv_poll_cq") }
func (*cqHandle) reqNotify(bool) error        { return unsupported("ibv_req_notify_cq") }
func (*pdHandle) createQP(qpCreate) (*qpHandle, uint32, QPCap, error) {
	return nil, 0, QPCap{}, unsupported("ibv_create_qp")
}
func (*qpHandle) destroy() error                   { return unsupported("ibv_destroy_qp") }
func (*qpHandle) addr() uintptr                    { return 0 }
func (*qpHandle) modify(*QPAttr, QPAttrMask) error { return unsupported("ibv_modify_qp") }
func (*qpHandle) query(QPAttrMask) (QPAttr, error) { return QPAttr{}, unsupported("ibv_query_qp") }
func (*qpHandle) postSend([]SendWR) error          { return unsupported("ibv_post_send") }
func (*qpHandle) sendBatch() int                   { return 0 }
func (*qpHandle) postSendSpin([]SendWR, *cqHandle, []WC, int) (int, error) {
	return 0, unsupported("ibv_post_send")
}
func (*qpHandle) postRecv([]RecvWR) error { return unsupported("ibv_post_recv") }
func (*qpHandle) bindMW(*mwHandle, *mrHandle, uint64, uint64, AccessFlags, uint64, SendFlags) (uint32, error) {
	return 0, unsupported("ibv_bind_mw")
}
func (*pdHandle) regMR(int, AccessFlags) (*mrHandle, []byte, uint32, uint32, error) {
	return nil, nil, 0, 0, unsupported("ibv_reg_mr")
}
func (*mrHandle) addr() uint64   { return 0 }
func (*mrHandle) destroy() error { return unsupported("ibv_dereg_mr") }
func (*pdHandle) allocMW(MWType) (*mwHandle, uint32, error) {
	return nil, 0, unsupported("ibv_alloc_mw")
}
func (*mwHandle) destroy() error                      { return unsupported("ibv_dealloc_mw") }
func (*pdHandle) createAH(*AHAttr) (*ahHandle, error) { return nil, unsupported("ibv_create_ah") }
func (*ahHandle) destroy() error                      { return unsupported("ibv_destroy_ah") }
func (*pdHandle) createSRQ(SRQAttr) (*srqHandle, SRQAttr, error) {
	return nil, SRQAttr{}, unsupported("ibv_create_srq")
}
func (*srqHandle) addr() uintptr                     { return 0 }
func (*srqHandle) destroy() error                    { return unsupported("ibv_destroy_srq") }
func (*srqHandle) query() (SRQAttr, error)           { return SRQAttr{}, unsupported("ibv_query_srq") }
func (*srqHandle) modify(SRQAttr, SRQAttrMask) error { return unsupported("ibv_modify_srq") }
func (*srqHandle) postRecv([]RecvWR) error           { return unsupported("ibv_post_srq_recv") }
