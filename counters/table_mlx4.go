package counters

// mlx4Table is mlx4_ib's transport diagnostic counters
// (drivers/infiniband/hw/mlx4/main.c: diag_basic, diag_ext,
// diag_device_only), read with QUERY_DIAG_COUNTERS into u32s. rq_ are
// counted where the QP is the responder, sq_ where it is the requester.
func mlx4Table() []entry {
	const src = "drivers/infiniband/hw/mlx4/main.c (diag counters, 32-bit)"
	return group("mlx4", src, 32,
		spec{"rq_num_lle", ClassError, SideResponder, SignalNone, true, "receive-side local length errors (message longer than the receive buffer)", ""},
		spec{"sq_num_lle", ClassError, SideRequester, SignalNone, true, "send-side local length errors", ""},
		spec{"rq_num_lqpoe", ClassError, SideResponder, SignalNone, true, "receive-side local QP operation errors", ""},
		spec{"sq_num_lqpoe", ClassError, SideRequester, SignalNone, true, "send-side local QP operation errors", ""},
		spec{"rq_num_lpe", ClassError, SideResponder, SignalNone, true, "receive-side local protection errors (lkey or MR access)", ""},
		spec{"sq_num_lpe", ClassError, SideRequester, SignalNone, true, "send-side local protection errors (lkey or MR access)", ""},
		spec{"rq_num_wrfe", ClassError, SideResponder, SignalNone, true, "receives flushed because their QP was in the Error state", ""},
		spec{"sq_num_wrfe", ClassError, SideRequester, SignalNone, true, "sends flushed because their QP was in the Error state", ""},
		spec{"sq_num_mwbe", ClassError, SideRequester, SignalNone, true, "memory window bind errors", ""},
		spec{"sq_num_bre", ClassError, SideRequester, SignalNone, true, "bad responses received (unexpected opcode or malformed)", ""},
		spec{"sq_num_rire", ClassError, SideRequester, SignalRemoteInvalid, true, "requests the peer refused as invalid", ""},
		spec{"rq_num_rire", ClassError, SideResponder, SignalRemoteInvalid, true, "incoming requests refused as invalid", ""},
		spec{"sq_num_rae", ClassError, SideRequester, SignalRemoteAccess, true, "RDMA requests the peer refused for access", ""},
		spec{"rq_num_rae", ClassError, SideResponder, SignalRemoteAccess, true, "incoming RDMA requests refused for access", ""},
		spec{"sq_num_roe", ClassError, SideRequester, SignalNone, true, "remote operation errors reported by the peer", ""},
		spec{"sq_num_tree", ClassError, SideRequester, SignalRetryExceeded, true, "requests failed after retry_cnt transport timeouts", ""},
		spec{"sq_num_rree", ClassError, SideRequester, SignalRNRExceeded, true, "requests failed after rnr_retry RNR NAKs", ""},
		spec{"rq_num_rnr", ClassRetry, SideResponder, SignalRNR, false, "RNR NAKs sent: a Send arrived with no receive posted", ""},
		spec{"sq_num_rnr", ClassRetry, SideRequester, SignalRNR, false, "RNR NAKs received: the peer had no receive posted; retried", ""},
		spec{"rq_num_oos", ClassRetry, SideResponder, SignalSequence, false, "requests received out of sequence; a NAK was sent", ""},
		spec{"sq_num_oos", ClassRetry, SideRequester, SignalSequence, false, "sequence-error NAKs received; resent from the lost packet", ""},
		spec{"rq_num_dup", ClassRetry, SideResponder, SignalNone, false, "duplicate requests received: the peer resent them", ""},
		spec{"sq_num_to", ClassRetry, SideRequester, SignalTimeoutRetry, false, "transport timeouts: no ACK in time, the request is resent", ""},
		spec{"num_cqovf", ClassError, SideDevice, SignalNone, true, "completion queue overflows",
			"Raised when a CQ received more completions than it had room for. The CQ goes to an error state and its QPs' work can no longer complete. Make the CQ at least as deep as the work its QPs can have outstanding, and poll it faster."},
		spec{"rq_num_udsdprd", ClassDrop, SideResponder, SignalNone, false, "UD packets silently dropped for lack of a receive", ""},
	)
}
