package rdma

// Hint says what usually causes a completion status and what to check,
// the notes of ibv_poll_cq(3) and the IBTA spec in plain words.
func (s WCStatus) Hint() string {
	switch s {
	case WCLocLenErr:
		return "the message is longer than the receive buffer posted for it (or than the port's max message size): post bigger receives"
	case WCLocQPOpErr:
		return "the request is not valid for this QP (an opcode its type does not support, too many SGEs, inline data over the limit), or, on rxe, an incoming message longer than the receive buffer posted for it"
	case WCLocProtErr:
		return "an SGE names memory its lkey does not cover, or an MR of another PD, or lacks LOCAL_WRITE for data landing there"
	case WCWRFlushErr:
		return "the QP was in the error state, so this request was flushed without running; find the first error completion, the cause is there"
	case WCMWBindErr:
		return "the memory window bind was refused: the MR lacks MW_BIND, the range is outside it, or the window is in use"
	case WCBadRespErr:
		return "the responder sent an unexpected transport reply"
	case WCLocAccessErr:
		return "a protection error on local data: an RDMA read or atomic result would land in memory without LOCAL_WRITE"
	case WCRemInvReqErr:
		return "the responder found the request invalid: an opcode its QP does not allow (e.g. no remote access flags on its QP), or a message too long for its receive"
	case WCRemAccessErr:
		return "the responder refused access: the rkey is wrong, the range is outside the remote MR, or the MR (or QP) lacks REMOTE_WRITE/READ/ATOMIC"
	case WCRemOpErr:
		return "the responder could not complete the operation, e.g. its receive queue or CQ failed"
	case WCRetryExcErr:
		return "no acknowledgement after retry_cnt retries: the peer QP is gone, not in RTR/RTS, or the path (GID, MTU, network) is wrong"
	case WCRNRRetryExcErr:
		return "the peer had no receive posted (receiver not ready) more than rnr_retry times: post receives before the sender sends, or raise rnr_retry (7 = forever)"
	case WCRemAbortErr:
		return "the responder aborted the operation"
	case WCFatalErr:
		return "the device hit a fatal error"
	case WCRespTimeoutErr:
		return "the responder did not answer in time"
	case WCGeneralErr:
		return "a provider-specific error: see VendorErr and dmesg"
	}
	return ""
}
