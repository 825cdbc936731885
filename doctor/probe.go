package doctor

import (
	"fmt"
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
	"github.com/verbscope/verbscope/view"
)

// probeAccess is what the probe's MR allows: what a peer needs to read
// and write it, so the registration is the one real programs make.
const probeAccess = rdma.AccessLocalWrite | rdma.AccessRemoteWrite | rdma.AccessRemoteRead

// runProbe registers size bytes on the device and takes an RC QP to INIT
// on port, the way rc_pingpong starts (ibv_open_device, ibv_alloc_pd,
// ibv_reg_mr, ibv_create_cq, ibv_create_qp, ibv_modify_qp), then destroys
// everything. The first failing call ends it; Steps say what each call
// did, how long it took, or its error.
func runProbe(dev string, port, size int) (p Probe) {
	p = Probe{Dev: dev, Port: port, MRSize: size}
	run := func(call string, fn func() (string, error)) bool {
		start := time.Now()
		detail, err := fn()
		p.Steps = append(p.Steps, ProbeStep{Call: call, Detail: detail, Err: err, Took: time.Since(start)})
		return err == nil
	}
	var ctx *verbs.Context
	defer func() {
		if ctx != nil {
			run("teardown", func() (string, error) {
				return "destroyed the QP, CQ, MR and PD and closed the device", ctx.Close()
			})
		}
	}()
	var pd *verbs.PD
	var cq *verbs.CQ
	var qp *verbs.QP
	ok := run("ibv_open_device", func() (s string, err error) {
		ctx, err = verbs.Open(dev)
		return dev, err
	}) && run("ibv_alloc_pd", func() (s string, err error) {
		pd, err = ctx.AllocPD()
		return "a protection domain", err
	}) && run("ibv_reg_mr", func() (string, error) {
		mr, err := pd.RegMR(size, probeAccess)
		if err != nil {
			return fmt.Sprintf("%s, %s", view.Bytes(size).String(), probeAccess), err
		}
		p.LKey, p.RKey = mr.LKey(), mr.RKey()
		return fmt.Sprintf("%s, %s: lkey %#x, rkey %#x", view.Bytes(size).String(), probeAccess, p.LKey, p.RKey), nil
	}) && run("ibv_create_cq", func() (s string, err error) {
		cq, err = ctx.CreateCQ(16, nil, 0)
		if err != nil {
			return "16 entries", err
		}
		return fmt.Sprintf("16 entries asked, %d given", cq.CQE()), nil
	}) && run("ibv_create_qp", func() (s string, err error) {
		qp, err = pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq,
			Cap: verbs.QPCap{MaxSendWR: 16, MaxRecvWR: 16, MaxSendSGE: 1, MaxRecvSGE: 1}})
		if err != nil {
			return "RC, 16 send and 16 receive WRs", err
		}
		p.QPN = qp.Num()
		return fmt.Sprintf("RC, 16 send and 16 receive WRs: QP %d", p.QPN), nil
	})
	if !ok {
		return p
	}
	run("ibv_modify_qp", func() (string, error) {
		step, err := rdma.DefaultsFor(rdma.QPStateReset, rdma.QPStateInit, rdma.QPTypeRC, rdma.ConnParams{Port: uint8(port)})
		if err != nil {
			return "RESET to INIT", err
		}
		detail := fmt.Sprintf("RESET to INIT (port %d, pkey_index 0, access %s)", port, step.Attr.AccessFlags)
		if err := qp.Modify(&step.Attr, step.Mask); err != nil {
			return detail, err
		}
		st, err := qp.State()
		if err != nil {
			return detail, err
		}
		p.QPState = st.String()
		return detail + ": " + p.QPState, nil
	})
	return p
}
