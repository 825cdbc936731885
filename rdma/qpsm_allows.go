package rdma

// Allows is what a QP in a state does with work requests and packets
// (IBTA vol. 1 §10.3.1's state descriptions; ibv_post_send(3),
// ibv_post_recv(3); rxe_post_send/rxe_post_recv in
// drivers/infiniband/sw/rxe/rxe_verbs.c).
type Allows struct {
	// PostRecv: ibv_post_recv accepts receives (every state but RESET;
	// in ERR they complete at once with WR_FLUSH_ERR).
	PostRecv bool
	// PostSend: ibv_post_send accepts sends (RTS, SQD, SQE, ERR).
	PostSend bool
	// SendsRun: a send posted now is processed (RTS) or queued until the
	// QP is back in RTS (SQD), not flushed.
	SendsRun bool
	// Receives: messages arriving from the peer are received and
	// acknowledged (RTR, RTS, SQD, SQE).
	Receives bool
	// FlushesSends and FlushesRecvs: work requests of that queue
	// complete with WR_FLUSH_ERR without running (ERR both; SQE sends).
	FlushesSends, FlushesRecvs bool
}

var stateAllows = map[QPState]Allows{
	QPStateReset: {},
	QPStateInit:  {PostRecv: true},
	QPStateRTR:   {PostRecv: true, Receives: true},
	QPStateRTS:   {PostRecv: true, PostSend: true, SendsRun: true, Receives: true},
	QPStateSQD:   {PostRecv: true, PostSend: true, SendsRun: true, Receives: true},
	QPStateSQE:   {PostRecv: true, PostSend: true, Receives: true, FlushesSends: true},
	QPStateErr:   {PostRecv: true, PostSend: true, FlushesSends: true, FlushesRecvs: true},
}

// Allows is what a QP in state s does with work requests and packets;
// an unknown state allows nothing.
func (s QPState) Allows() Allows { return stateAllows[s] }
