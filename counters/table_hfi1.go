package counters

// hfi1 (Intel/Cornelis Omni-Path) names its counters at run time:
// chip.c's init_cntrs walks dev_cntrs[] (the device's hw_counters/) and
// port_cntrs[] (each port's), writes each name once, or once per virtual
// lane (VL0-7 and VL15, CNTR_VL) or per send DMA engine (0-15,
// CNTR_SDMA) with the number after it, and then ",32" after the name of
// a 32-bit counter (CNTR_32BIT); a receive context's header-queue
// overflow counter (RcvHdrOvr) exists once per context in use (up to
// 160). verbs.c (init_counters, init_cntr_names) hands these names to
// rdma_hw_stats as they are, the ",32" included, and appends
// driver_cntr_names to the device's. The driver says what a counter
// counts only through its name and the register or software count it
// reads; where those do not say it plainly, the meaning says "by its
// name" and the class is other.

const (
	hfi1Chip  = "drivers/infiniband/hw/hfi1/chip.c (dev_cntrs, port_cntrs; init_cntrs)"
	hfi1Verbs = "drivers/infiniband/hw/hfi1/verbs.c (driver_cntr_names)"
)

// hfi1VLs are the virtual lanes a per-VL counter is repeated for
// (C_VL_COUNT; vl_from_idx: 0-7, then 15).
var hfi1VLs = append(span(0, 7), 15)

func hfi1Table() []entry {
	var out []entry
	for _, t := range [][]entry{hfi1Driver(), hfi1Device(), hfi1DeviceFamilies(), hfi1Port(), hfi1PortFamilies(), hfi1StatusBits()} {
		out = append(out, t...)
	}
	return out
}

// hfi1Driver is verbs.c's driver_cntr_names, at the end of the device's
// hw_counters/.
func hfi1Driver() []entry {
	return group("hfi1", hfi1Verbs, 0,
		spec{"DRIVER_KernIntr", ClassOther, SideDevice, SignalNone, false, "interrupts the driver handled", ""},
		spec{"DRIVER_ErrorIntr", ClassError, SideDevice, SignalNone, false, "error interrupts the driver handled", ""},
		spec{"DRIVER_Tx_Errs", ClassError, SideDevice, SignalNone, false, "send errors the driver saw", ""},
		spec{"DRIVER_Rcv_Errs", ClassError, SideDevice, SignalNone, false, "receive errors the driver saw", ""},
		spec{"DRIVER_HW_Errs", ClassError, SideDevice, SignalNone, false, "hardware errors the driver saw", ""},
		spec{"DRIVER_NoPIOBufs", ClassCongestion, SideDevice, SignalNone, false, "times a send waited for a free PIO buffer", ""},
		spec{"DRIVER_CtxtsOpen", ClassOther, SideDevice, SignalNone, false, "receive contexts open (a gauge)", ""},
		spec{"DRIVER_RcvLen_Errs", ClassError, SideDevice, SignalNone, false, "packets received with a bad length", ""},
		spec{"DRIVER_EgrBufFull", ClassDrop, SideDevice, SignalNone, false, "times the eager receive buffers were full", ""},
		spec{"DRIVER_EgrHdrFull", ClassDrop, SideDevice, SignalNone, false, "times the receive header queue was full", ""},
	)
}

// hfi1Device is dev_cntrs' counters that are not error-status bits.
// The 32-bit ones the chip counts in a register (CNTR_NORMAL) wrap at
// 2^32; those the driver extends in software (CNTR_SYNTH) do not say.
func hfi1Device() []entry {
	by := func(name string, class Class, says string) spec {
		return spec{name, class, SideDevice, SignalNone, false, "by its name, " + says + "; the driver documents no more", ""}
	}
	dev := func(name string, class Class, meaning string) spec {
		return spec{name, class, SideDevice, SignalNone, false, meaning, ""}
	}
	port := func(name string, class Class, meaning string) spec {
		return spec{name, class, SidePort, SignalNone, false, meaning, ""}
	}
	return append(append(append(group("hfi1", hfi1Chip, 32,
		// RXE32_DEV_CNTR_ELEM, CCE_PERF_ and CCE_INT_DEV_CNTR_ELEM with CNTR_NORMAL: 32-bit registers.
		by("RxTIDFullEr,32", ClassError, "receives whose expected-TID entries were full"),
		by("RxTIDInvalid,32", ClassError, "receives that named an invalid expected TID"),
		by("RxTidFLGMs,32", ClassOther, "TID flow generation mismatches on receive"),
		by("RxCtxEgrS,32", ClassOther, "receive-context eager-buffer stalls"),
		by("RxTidFLSMs,32", ClassOther, "TID flow sequence mismatches on receive"),
		dev("CcePciCrSt,32", ClassCongestion, "stalls for PCIe posted-write credits (CCE_PCIE_POSTED_CRDT_STALL_CNT)"),
		dev("CcePciTrSt,32", ClassCongestion, "stalls of the PCIe target (CCE_PCIE_TRGT_STALL_CNT)"),
		dev("CcePioWrSt,32", ClassCongestion, "stalls of PIO writes (CCE_PIO_WR_STALL_CNT)"),
		dev("CceErrInt,32", ClassOther, "error interrupts the chip raised (CCE_ERR_INT_CNT)"),
		dev("CceSdmaInt,32", ClassOther, "send DMA interrupts the chip raised (CCE_SDMA_INT_CNT)"),
		dev("CceMiscInt,32", ClassOther, "miscellaneous interrupts the chip raised (CCE_MISC_INT_CNT)"),
		dev("CceRcvAvInt,32", ClassOther, "receive-available interrupts the chip raised (CCE_RCV_AVAIL_INT_CNT)"),
		dev("CceRcvUrgInt,32", ClassOther, "receive-urgent interrupts the chip raised (CCE_RCV_URGENT_INT_CNT)"),
		dev("CceSndCrInt,32", ClassOther, "send-credit interrupts the chip raised (CCE_SEND_CREDIT_INT_CNT)"),
	), group("hfi1", hfi1Chip, 0,
		// RXE32_DEV_CNTR_ELEM with CNTR_SYNTH: the driver extends them past 32 bits.
		port("RcvOverflow,32", ClassDrop, "packets dropped because the receive buffer overflowed (RCV_BUF_OVFL_CNT)"),
		port("RxLenErr,32", ClassError, "packets received with a bad length (RCV_LENGTH_ERR_CNT)"),
		port("RxShrErr,32", ClassError, "packets received too short (RCV_SHORT_ERR_CNT)"),
		port("RxICrcErr,32", ClassError, "packets received with a bad invariant CRC (RCV_ICRC_ERR_CNT)"),
		port("RxEbpCnt,32", ClassError, "packets received marked bad by their sender, end-bad-packet (RCV_EBP_CNT)"),
	)...), hfi1Link()...), hfi1Software()...)
}

// hfi1Link is dev_cntrs' counters of the link (DC_PERF_CNTR and
// DC_PERF_CNTR_LCB: the DCC and the link-control block's registers).
func hfi1Link() []entry {
	port := func(name string, class Class, meaning string) spec {
		return spec{name, class, SidePort, SignalNone, false, meaning, ""}
	}
	by := func(name, says string) spec {
		return spec{name, ClassOther, SidePort, SignalNone, false, "by its name, " + says + "; the driver documents no more", ""}
	}
	return group("hfi1", hfi1Chip, 0,
		port("DcUnctblErr", ClassError, "uncorrectable errors on the link (DCC_ERR_UNCORRECTABLE_CNT)"),
		port("DcRecvErr", ClassError, "packets received with errors (DCC_ERR_PORTRCV_ERR_CNT)"),
		port("DcFmCfgErr", ClassError, "fabric-manager configuration errors (DCC_ERR_FMCONFIG_ERR_CNT)"),
		port("DcRmtPhyErr", ClassError, "packets received marked with a remote physical error (DCC_ERR_RCVREMOTE_PHY_ERR_CNT)"),
		port("DcDroppedPkt", ClassDrop, "packets the link layer dropped (DCC_ERR_DROPPED_PKT_CNT)"),
		port("DcMcXmitPkts", ClassTraffic, "multicast packets sent"),
		port("DcMcRcvPkts", ClassTraffic, "multicast packets received"),
		port("DcXmitCorr", ClassError, "correctable errors on send (DCC_PRF_PORT_XMIT_CORRECTABLE_CNT)"),
		port("DcRcvCorrCnt", ClassError, "correctable errors on receive (DCC_PRF_PORT_RCV_CORRECTABLE_CNT)"),
		port("DcRxFCntl", ClassOther, "link flow-control packets received"),
		port("DcXmitFCntl", ClassOther, "link flow-control packets sent"),
		port("DcXmitFlits", ClassTraffic, "flits sent (DCC_PRF_PORT_XMIT_DATA_CNT)"),
		port("DcRcvFlits", ClassTraffic, "flits received (DCC_PRF_PORT_RCV_DATA_CNT)"),
		port("DcXmitPkts", ClassTraffic, "packets sent"),
		port("DcRcvPkts", ClassTraffic, "packets received"),
		port("DcRcvFcn", ClassCongestion, "packets received with the forward congestion bit (FECN) set"),
		port("DcRcvBcn", ClassCongestion, "packets received with the backward congestion bit (BECN) set"),
		by("DcRcvBbl", "bubbles (gaps) in received data (DCC_PRF_PORT_RCV_BUBBLE_CNT)"),
		port("DcMarkFcn", ClassCongestion, "packets the port marked with FECN"),
		port("DcTotCrc", ClassError, "CRC errors on the link, every lane (DC_LCB_ERR_INFO_TOTAL_CRC_ERR)"),
		port("DcCrcLn0", ClassError, "CRC errors on lane 0"),
		port("DcCrcLn1", ClassError, "CRC errors on lane 1"),
		port("DcCrcLn2", ClassError, "CRC errors on lane 2"),
		port("DcCrcLn3", ClassError, "CRC errors on lane 3"),
		port("DcMultLn", ClassError, "CRC errors on more than one lane at once"),
		port("DcTxReplay", ClassRetry, "link-level replays the port sent (the link resending, below any QP)"),
		port("DcRxReplay", ClassRetry, "link-level replays the port received (the link resending, below any QP)"),
		port("DcLinkSeqCrc", ClassError, "link sequence CRC errors (DC_LCB_ERR_INFO_SEQ_CRC_CNT)"),
		by("DcEsc0", "link-control escape-0-only events (DC_LCB_ERR_INFO_ESCAPE_0_ONLY_CNT)"),
		by("DcEsc1", "link-control escape-0-plus-1 events (DC_LCB_ERR_INFO_ESCAPE_0_PLUS1_CNT)"),
		by("DcEsc0Plus2", "link-control escape-0-plus-2 events (DC_LCB_ERR_INFO_ESCAPE_0_PLUS2_CNT)"),
		by("DcReinitPeer", "link reinitializations asked for by the peer (DC_LCB_ERR_INFO_REINIT_FROM_PEER_CNT)"),
		port("DcSbe", ClassError, "single-bit errors the link control block corrected (DC_LCB_ERR_INFO_SBE_CNT)"),
		by("DcMiscFlg", "miscellaneous link-control flags (DC_LCB_ERR_INFO_MISC_FLG_CNT)"),
		port("DcGoodLTP", ClassTraffic, "good link transfer packets (DC_LCB_PRF_GOOD_LTP_CNT)"),
		port("DcAccLTP", ClassTraffic, "link transfer packets accepted (DC_LCB_PRF_ACCEPTED_LTP_CNT)"),
		port("DcPrfRxFlit", ClassTraffic, "flits the link control block received"),
		port("DcPrfTxFlit", ClassTraffic, "flits the link control block sent"),
		by("DcPrfClk", "clock ticks of the link control block's performance counters (DC_LCB_PRF_CLK_CNTR)"),
		by("DcFltCrdts", "flit credits, a debug count (DC_LCB_PG_DBG_FLIT_CRDTS_CNT)"),
		by("DcPauseComp", "completed pauses (DC_LCB_PG_STS_PAUSE_COMPLETE_CNT)"),
		port("DcStsTxSbe", ClassError, "single-bit errors on the send side (DC_LCB_PG_STS_TX_SBE_CNT)"),
		port("DcStsTxMbe", ClassError, "multi-bit errors on the send side (DC_LCB_PG_STS_TX_MBE_CNT)"),
	)
}

// hfi1Software is dev_cntrs' counts the driver keeps itself (some summed
// over CPUs).
func hfi1Software() []entry {
	dev := func(name string, class Class, meaning string) spec {
		return spec{name, class, SideDevice, SignalNone, false, meaning, ""}
	}
	return group("hfi1", hfi1Chip, 0,
		dev("Intr", ClassOther, "interrupts the driver handled, summed over CPUs"),
		dev("RcvLimit", ClassOther, "by its name, times receive processing stopped at its per-call limit (summed over CPUs); the driver documents no more"),
		dev("SeqDrop0", ClassDrop, "by its name, packets receive context 0 dropped for their sequence (ctx0_seq_drop); the driver documents no more"),
		dev("vTxWait", ClassCongestion, "times a verbs send waited for resources (n_txwait)"),
		dev("PioWait", ClassCongestion, "times a send waited for a PIO buffer (n_piowait)"),
		dev("PioDrain", ClassOther, "times the driver waited for a PIO send context to drain (n_piodrain)"),
		dev("KmemWait", ClassCongestion, "times a send waited for kernel memory (n_kmem_wait)"),
		dev("TidWait", ClassCongestion, "times a send waited for TID resources"),
		dev("SendSched", ClassOther, "times sends were scheduled to run later, summed over CPUs"),
	)
}

// hfi1DeviceFamilies are dev_cntrs' per-VL (DC_PERF_CNTR with CNTR_VL)
// and per-send-DMA-engine counters (CNTR_SDMA, 32-bit).
func hfi1DeviceFamilies() []entry {
	port := func(name string, class Class, meaning string) spec {
		return spec{name, class, SidePort, SignalNone, false, meaning, ""}
	}
	dev := func(name string, class Class, meaning string) spec {
		return spec{name, class, SideDevice, SignalNone, false, meaning, ""}
	}
	return append(family("hfi1", hfi1Chip, 0, "", hfi1VLs,
		port("DcRxFlitVl", ClassTraffic, "flits received on the virtual lane the number names"),
		port("DcRxPktVl", ClassTraffic, "packets received on the virtual lane the number names"),
		port("DcRcvFcnVl", ClassCongestion, "packets received with FECN set on the virtual lane the number names"),
		port("DcRcvBcnVl", ClassCongestion, "packets received with BECN set on the virtual lane the number names"),
		spec{"DcRcvBblVl", ClassOther, SidePort, SignalNone, false, "by its name, bubbles in received data on the virtual lane the number names; the driver documents no more", ""},
		port("DcMarkFcnVl", ClassCongestion, "packets the port marked with FECN on the virtual lane the number names"),
	), family("hfi1", hfi1Chip, 0, ",32", span(0, 15),
		dev("SDEDscFdCn", ClassTraffic, "descriptors the send DMA engine the number names fetched (SEND_DMA_DESC_FETCHED_CNT)"),
		dev("SDMAInt", ClassOther, "interrupts of the send DMA engine the number names"),
		dev("SDMAErrCt", ClassError, "errors of the send DMA engine the number names"),
		dev("SDMAIdInt", ClassOther, "idle interrupts of the send DMA engine the number names"),
		dev("SDMAPrIntCn", ClassOther, "progress interrupts of the send DMA engine the number names"),
	)...)
}

// hfi1Port is port_cntrs: the send and receive engines' per-port
// registers (TXE32/TXE64/RXE64_PORT_CNTR_ELEM) and the driver's own
// per-port counts (SW_IBP_CNTR: rdmavt's ibport counters, raised in
// hfi1's rc.c as it sends, resends and answers).
func hfi1Port() []entry {
	port := func(name string, class Class, meaning string) spec {
		return spec{name, class, SidePort, SignalNone, false, meaning, ""}
	}
	return append(group("hfi1", hfi1Chip, 32,
		port("TxUnVLErr,32", ClassError, "packets to send on a virtual lane the port does not support (SEND_UNSUP_VL_ERR_CNT)"),
		port("TxInvalLen,32", ClassError, "packets to send with an invalid length (SEND_LEN_ERR_CNT)"),
		port("TxMMLenErr,32", ClassError, "packets to send longer than the largest or shorter than the smallest allowed (SEND_MAX_MIN_LEN_ERR_CNT)"),
		port("TxUnderrun,32", ClassError, "sends that ran out of data mid-packet, underruns (SEND_UNDERRUN_CNT)"),
		port("TxFlowStall,32", ClassCongestion, "send flow stalls (SEND_FLOW_STALL_CNT)"),
		port("TxDropped,32", ClassDrop, "packets dropped on send (SEND_DROPPED_PKT_CNT)"),
		port("TxHdrErr,32", ClassError, "packets to send with a bad header (SEND_HEADERS_ERR_CNT)"),
	), group("hfi1", hfi1Chip, 0,
		port("TxPkt", ClassTraffic, "packets sent"),
		port("TxWords", ClassTraffic, "4-byte words sent (SEND_DWORD_CNT)"),
		port("TxWait", ClassCongestion, "time the port had data to send and could not, for lack of credits (SEND_WAIT_CNT)"),
		port("RxPkt", ClassTraffic, "packets received"),
		port("RxWords", ClassTraffic, "4-byte words received (RCV_DWORD_CNT)"),
		port("SwLinkDown,32", ClassError, "times the link went down, as the driver counts them"),
		port("SwLinkUp,32", ClassOther, "times the link came up, as the driver counts them"),
		port("UnknownFrame", ClassError, "frames received of a kind the driver does not know"),
		port("XmitDscd,32", ClassDrop, "packets discarded on send (port_xmit_discards)"),
		port("XmitCstrErr", ClassDrop, "packets not sent for a partition or filtering rule (port_xmit_constraint_errors)"),
		port("RcvCstrErr", ClassDrop, "packets received and dropped for a partition or filtering rule (port_rcv_constraint_errors)"),
		port("LoopPkts", ClassTraffic, "packets the driver looped back to a QP of the same port"),
		spec{"RcResend", ClassRetry, SideRequester, SignalNone, false, "RC packets the requester sent again, after a timeout or a NAK (n_rc_resends)", ""},
		spec{"RnrNak", ClassRetry, SideRequester, SignalRNR, false, "RNR NAKs the requester received (n_rnr_naks)", ""},
		spec{"OtherNak", ClassError, SideRequester, SignalNone, true, "NAKs for remote access, invalid-request or operational errors the requester received (n_other_naks)", ""},
		spec{"RcTimeOut", ClassRetry, SideRequester, SignalTimeoutRetry, false, "times an RC requester's retry timer ran out (n_rc_timeouts)", ""},
		port("PktDrop", ClassDrop, "packets the driver's receive path dropped (n_pkt_drops)"),
		port("DmaWait", ClassCongestion, "times a send waited for send DMA descriptors (n_dmawait)"),
		spec{"RcSeqNak", ClassRetry, SideResponder, SignalSequence, false, "sequence NAKs the responder sent for a packet out of order (n_rc_seqnak)", ""},
		spec{"RcDupRew", ClassRetry, SideResponder, SignalNone, false, "duplicate requests the responder received (n_rc_dupreq)", ""},
		spec{"RdmaSeq", ClassRetry, SideRequester, SignalSequence, false, "RDMA Read responses the requester received out of sequence (n_rdma_seq)", ""},
		port("Unaligned", ClassOther, "by its name, unaligned requests (n_unaligned); the driver documents no more"),
		spec{"SeqNak", ClassRetry, SideRequester, SignalSequence, false, "sequence NAKs the requester received (n_seq_naks)", ""},
		spec{"RcCrWait", ClassCongestion, SideRequester, SignalNone, false, "times an RC requester waited for the responder's flow-control credits (n_rc_crwaits)", ""},
		spec{"RcAcks", ClassTraffic, SideResponder, SignalNone, false, "ACKs sent, summed over CPUs", ""},
		spec{"RcQacks", ClassTraffic, SideResponder, SignalNone, false, "ACKs queued to go with a later packet, summed over CPUs", ""},
		spec{"RcDelayComp", ClassOther, SideRequester, SignalNone, false, "completions the requester delayed, summed over CPUs", ""},
	)...)
}

// hfi1PortFamilies are port_cntrs' per-VL counters and the receive
// contexts' header-queue overflows (OVR_ELM, one per context in use).
func hfi1PortFamilies() []entry {
	port := func(name string, class Class, meaning string) spec {
		return spec{name, class, SidePort, SignalNone, false, meaning, ""}
	}
	return append(append(family("hfi1", hfi1Chip, 0, "", hfi1VLs,
		port("TxFlitVL", ClassTraffic, "flits sent on the virtual lane the number names"),
		port("TxPktVL", ClassTraffic, "packets sent on the virtual lane the number names"),
		port("TxWaitVL", ClassCongestion, "time the port waited to send on the virtual lane the number names"),
	), family("hfi1", hfi1Chip, 0, ",32", hfi1VLs,
		port("XmitDscdVl", ClassDrop, "packets discarded on send on the virtual lane the number names"),
	)...), family("hfi1", hfi1Chip, 0, "", span(0, 159),
		port("RcvHdrOvr", ClassDrop, "packets dropped because the header queue of the receive context the number names was full"),
	)...)
}

// hfi1StatusBits are dev_cntrs' counters of the chip's error-status
// bits: the driver's interrupt handlers (handle_cce_err, handle_rxe_err,
// handle_pio_err, ...) count each bit they find set. chip.c names the
// bits and says no more of most; the register says which part of the
// chip raised it.
func hfi1StatusBits() []entry {
	out := group("hfi1", hfi1Chip, 0, spec{"CceErrStatusAggregatedCnt", ClassError, SideDevice, SignalNone, false,
		"error bits the driver found set in CceErrStatus, every bit summed", ""})
	for _, r := range []struct {
		register, part string
		names          []string
	}{
		{"MISC_ERR_STATUS", "the chip's miscellaneous block", []string{
			"MISC_PLL_LOCK_FAIL_ERR", "MISC_MBIST_FAIL_ERR", "MISC_INVALID_EEP_CMD_ERR", "MISC_EFUSE_DONE_PARITY_ERR",
			"MISC_EFUSE_WRITE_ERR", "MISC_EFUSE_READ_BAD_ADDR_ERR", "MISC_EFUSE_CSR_PARITY_ERR",
			"MISC_FW_AUTH_FAILED_ERR", "MISC_KEY_MISMATCH_ERR", "MISC_SBUS_WRITE_FAILED_ERR",
			"MISC_CSR_WRITE_BAD_ADDR_ERR", "MISC_CSR_READ_BAD_ADDR_ERR", "MISC_CSR_PARITY_ERR"}},
		{"CceErrStatus", "the PCIe interface (CCE)", []string{
			"CceMsixCsrParityErr", "CceIntMapUncErr", "CceIntMapCorErr",
			"CceMsixTableUncErr", "CceMsixTableCorErr", "CceRxdmaConvFifoParityErr", "CceRcplAsyncFifoParityErr",
			"CceSegWriteBadAddrErr", "CceSegReadBadAddrErr", "Cce LATriggered", "CceTrgtCplTimeoutErr",
			"PcicReceiveParityErr", "PcicTransmitBackParityErr", "PcicTransmitFrontParityErr", "PcicCplDatQUncErr",
			"PcicCplHdQUncErr", "PcicPostDatQUncErr", "PcicPostHdQUncErr", "PcicRetrySotMemUncErr", "PcicRetryMemUncErr",
			"PcicNPostDatQParityErr", "PcicNPostHQParityErr", "PcicCplDatQCorErr", "PcicCplHdQCorErr",
			"PcicPostDatQCorErr", "PcicPostHdQCorErr", "PcicRetrySotMemCorErr", "PcicRetryMemCorErr",
			"CceCli1AsyncFifoDbgParityError", "CceCli1AsyncFifoRxdmaParityError", "CceCli1AsyncFifoSdmaHdParityErr",
			"CceCli1AsyncFifoPioCrdtParityErr", "CceCli2AsyncFifoParityErr", "CceCsrCfgBusParityErr",
			"CceCli0AsyncFifoParityErr", "CceRspdDataParityErr", "CceTrgtAccessErr", "CceTrgtAsyncFifoParityErr",
			"CceCsrWriteBadAddrErr", "CceCsrReadBadAddrErr", "CceCsrParityErr"}},
		{"RcvErrStatus", "the receive engine", []string{
			"RxCsrParityErr", "RxCsrWriteBadAddrErr", "RxCsrReadBadAddrErr", "RxDmaCsrUncErr", "RxDmaDqFsmEncodingErr",
			"RxDmaEqFsmEncodingErr", "RxDmaCsrParityErr", "RxRbufDataCorErr", "RxRbufDataUncErr",
			"RxDmaDataFifoRdCorErr", "RxDmaDataFifoRdUncErr", "RxDmaHdrFifoRdCorErr", "RxDmaHdrFifoRdUncErr",
			"RxRbufDescPart2CorErr", "RxRbufDescPart2UncErr", "RxRbufDescPart1CorErr", "RxRbufDescPart1UncErr",
			"RxHqIntrFsmErr", "RxHqIntrCsrParityErr", "RxLookupCsrParityErr", "RxLookupRcvArrayCorErr",
			"RxLookupRcvArrayUncErr", "RxLookupDesPart2ParityErr", "RxLookupDesPart1UncCorErr", "RxLookupDesPart1UncErr",
			"RxRbufNextFreeBufCorErr", "RxRbufNextFreeBufUncErr", "RxRbufFlInitWrAddrParityErr",
			"RxRbufFlInitdoneParityErr", "RxRbufFlWrAddrParityErr", "RxRbufFlRdAddrParityErr", "RxRbufEmptyErr",
			"RxRbufFullErr", "RxRBufBadLookupErr", "RxRbufCtxIdParityErr", "RxRbufCsrQEOPDWParityErr",
			"RxRbufCsrQNumOfPktParityErr", "RxRbufCsrQTlPtrParityErr", "RxRbufCsrQHdPtrParityErr",
			"RxRbufCsrQVldBitParityErr", "RxRbufCsrQNextBufParityErr", "RxRbufCsrQEntCntParityErr",
			"RxRbufCsrQHeadBufNumParityErr", "RxRbufBlockListReadCorErr", "RxRbufBlockListReadUncErr",
			"RxRbufLookupDesCorErr", "RxRbufLookupDesUncErr", "RxRbufLookupDesRegUncCorErr", "RxRbufLookupDesRegUncErr",
			"RxRbufFreeListCorErr", "RxRbufFreeListUncErr", "RxRcvFsmEncodingErr", "RxDmaFlagCorErr", "RxDmaFlagUncErr",
			"RxDcSopEopParityErr", "RxRcvCsrParityErr", "RxRcvQpMapTableCorErr", "RxRcvQpMapTableUncErr",
			"RxRcvDataCorErr", "RxRcvDataUncErr", "RxRcvHdrCorErr", "RxRcvHdrUncErr", "RxDcIntfParityErr",
			"RxDmaCsrCorErr"}},
		{"SendPioErrStatus", "programmed-I/O send", []string{
			"PioPecSopHeadParityErr", "PioPccSopHeadParityErr", "PioLastReturnedCntParityErr",
			"PioCurrentFreeCntParityErr", "Pio Reserved 31", "Pio Reserved 30", "PioPpmcSopLenErr",
			"PioPpmcBqcMemParityErr", "PioVlFifoParityErr", "PioVlfSopParityErr", "PioVlfVlLenParityErr",
			"PioBlockQwCountParityErr", "PioWriteQwValidParityErr", "PioStateMachineErr", "PioWriteDataParityErr",
			"PioHostAddrMemCorErr", "PioHostAddrMemUncErr", "PioPktEvictSmOrArbSmErr", "PioInitSmInErr",
			"PioPpmcPblFifoErr", "PioCreditRetFifoParityErr", "PioVlLenMemBank1CorErr", "PioVlLenMemBank0CorErr",
			"PioVlLenMemBank1UncErr", "PioVlLenMemBank0UncErr", "PioSmPktResetParityErr", "PioPktEvictFifoParityErr",
			"PioSbrdctrlCrrelFifoParityErr", "PioSbrdctlCrrelParityErr", "PioPecFifoParityErr", "PioPccFifoParityErr",
			"PioSbMemFifo1Err", "PioSbMemFifo0Err", "PioCsrParityErr", "PioWriteAddrParityErr", "PioWriteBadCtxtErr"}},
		{"SendDmaErrStatus", "send DMA", []string{
			"SDmaPcieReqTrackingCorErr", "SDmaPcieReqTrackingUncErr", "SDmaCsrParityErr", "SDmaRpyTagErr"}},
		{"SendEgressErrStatus", "the send egress", []string{
			"TxReadPioMemoryCsrUncErr", "TxReadSdmaMemoryCsrUncErr", "TxEgressFifoCorErr", "TxReadPioMemoryCorErr",
			"TxReadSdmaMemoryCorErr", "TxSbHdrCorErr", "TxCreditOverrunErr", "TxLaunchFifo8CorErr",
			"TxLaunchFifo7CorErr", "TxLaunchFifo6CorErr", "TxLaunchFifo5CorErr", "TxLaunchFifo4CorErr",
			"TxLaunchFifo3CorErr", "TxLaunchFifo2CorErr", "TxLaunchFifo1CorErr", "TxLaunchFifo0CorErr",
			"TxCreditReturnVLErr", "TxHcrcInsertionErr", "TxEgressFifoUncErr", "TxReadPioMemoryUncErr",
			"TxReadSdmaMemoryUncErr", "TxSbHdrUncErr", "TxCreditReturnParityErr", "TxLaunchFifo8UncOrParityErr",
			"TxLaunchFifo7UncOrParityErr", "TxLaunchFifo6UncOrParityErr", "TxLaunchFifo5UncOrParityErr",
			"TxLaunchFifo4UncOrParityErr", "TxLaunchFifo3UncOrParityErr", "TxLaunchFifo2UncOrParityErr",
			"TxLaunchFifo1UncOrParityErr", "TxLaunchFifo0UncOrParityErr", "TxSdma15DisallowedPacketErr",
			"TxSdma14DisallowedPacketErr", "TxSdma13DisallowedPacketErr", "TxSdma12DisallowedPacketErr",
			"TxSdma11DisallowedPacketErr", "TxSdma10DisallowedPacketErr", "TxSdma9DisallowedPacketErr",
			"TxSdma8DisallowedPacketErr", "TxSdma7DisallowedPacketErr", "TxSdma6DisallowedPacketErr",
			"TxSdma5DisallowedPacketErr", "TxSdma4DisallowedPacketErr", "TxSdma3DisallowedPacketErr",
			"TxSdma2DisallowedPacketErr", "TxSdma1DisallowedPacketErr", "TxSdma0DisallowedPacketErr",
			"TxConfigParityErr", "TxSbrdCtlCsrParityErr", "TxLaunchCsrParityErr", "TxIllegalVLErr",
			"TxSbrdCtlStateMachineParityErr", "Tx Egress Reserved 10", "Tx Egress Reserved 9",
			"TxSdmaLaunchIntfParityErr", "TxPioLaunchIntfParityErr", "Tx Egress Reserved 6", "TxIncorrectLinkStateErr",
			"TxLinkdownErr", "EgressFifoUnderrunOrParityErr", "Tx Egress Reserved 2", "TxPktIntegrityMemUncErr",
			"TxPktIntegrityMemCorErr"}},
		{"SendErrStatus", "the send engine's registers", []string{
			"SendCsrWriteBadAddrErr", "SendCsrReadBadAddrErr", "SendCsrParityErr"}},
		{"SendCtxtErrStatus", "the send contexts (summed over all of them)", []string{
			"PioWriteOutOfBoundsErr", "PioWriteOverflowErr", "PioWriteCrossesBoundaryErr", "PioDisallowedPacketErr",
			"PioInconsistentSopErr"}},
		{"SendDmaEngErrStatus", "the send DMA engines (summed over all 16)", []string{
			"SDmaHeaderRequestFifoCorErr", "SDmaHeaderStorageCorErr", "SDmaPacketTrackingCorErr", "SDmaAssemblyCorErr",
			"SDmaDescTableCorErr", "SDmaHeaderRequestFifoUncErr", "SDmaHeaderStorageUncErr", "SDmaPacketTrackingUncErr",
			"SDmaAssemblyUncErr", "SDmaDescTableUncErr", "SDmaTimeoutErr", "SDmaHeaderLengthErr", "SDmaHeaderAddressErr",
			"SDmaHeaderSelectErr", "SDma Reserved 9", "SDmaPacketDescOverflowErr", "SDmaLengthMismatchErr",
			"SDmaHaltErr", "SDmaMemReadErr", "SDmaFirstDescErr", "SDmaTailOutOfBoundsErr", "SDmaTooLongErr",
			"SDmaGenMismatchErr", "SDmaWrongDwErr"}},
	} {
		rows := make([]spec, len(r.names))
		for i, n := range r.names {
			rows[i] = spec{n, ClassError, SideDevice, SignalNone, false,
				"times the driver found this bit set in " + r.register + ", an error of " + r.part + "; chip.c names the bit and no more", ""}
		}
		out = append(out, group("hfi1", hfi1Chip, 0, rows...)...)
	}
	return out
}
