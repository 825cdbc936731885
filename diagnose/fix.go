package diagnose

import (
	"fmt"
	"math"
	"time"
)

// ackTimeout is the local ACK timeout a QP's timeout attribute sets:
// 4.096 µs × 2^timeout (IBTA 9.7.6.1.3; ibv_modify_qp(3)), 0 meaning
// wait forever.
func ackTimeout(timeout int) time.Duration {
	return time.Duration(4096 * math.Pow(2, float64(timeout)))
}

// roughly prints d as people say it: "67 ms", "4.3 s", "8.4 µs".
func roughly(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.0f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
}

// retryForever reports whether a driver never gives up at retry_cnt 7:
// rxe's completer treats 7 like rnr_retry's 7, infinite
// (drivers/infiniband/sw/rxe/rxe_comp.c, the retry_cnt check in
// complete_ack/rxe_completer), where the IBTA counts 7 retries.
func retryForever(driver string) bool { return driver == "rxe" }

// timeoutLines says how long the QP retries after a transport timeout,
// in words: timeout 14 = 4.096 µs × 2^14 ≈ 67 ms a try, retry_cnt tries.
func timeoutLines(t traced, driver string) []string {
	if t.Timeout < 0 || t.RetryCnt < 0 {
		return []string{"its timeout and retry_cnt are unknown without trace (verbscope trace, or an exporter or dashboard with trace on, sees the modify that set them); " +
			"rc_pingpong's are timeout 14 (4.096 µs × 2^14 ≈ 67 ms a try) and retry_cnt 7"}
	}
	var out []string
	if t.Timeout == 0 {
		out = append(out, "timeout 0: the QP waits for an ACK forever, it never retransmits on its own")
	} else {
		try := ackTimeout(t.Timeout)
		out = append(out, fmt.Sprintf("timeout %d = 4.096 µs × 2^%d ≈ %s a try", t.Timeout, t.Timeout, roughly(try)))
		if t.RetryCnt == 7 && retryForever(driver) {
			out = append(out, fmt.Sprintf("retry_cnt 7: %s retries forever at 7 (rxe_comp.c), so the QP never reaches ERR and no completion ever tells the program; "+
				"set retry_cnt 6 or less to get IBV_WC_RETRY_EXC_ERR after about %s", driver, roughly(try*7)))
		} else {
			out = append(out, fmt.Sprintf("retry_cnt %d: %d tries, about %s, then IBV_WC_RETRY_EXC_ERR and the QP goes to ERR",
				t.RetryCnt, t.RetryCnt+1, roughly(try*time.Duration(t.RetryCnt+1))))
		}
	}
	return out
}

// rnrLines says how long the QP retries after RNR NAKs.
func rnrLines(t traced) []string {
	switch {
	case t.RNRRetry < 0:
		return []string{"its rnr_retry is unknown without trace; rc_pingpong's is 7, which retries forever (IBTA: 7 means infinite)"}
	case t.RNRRetry == 7:
		return []string{"rnr_retry 7 means retry forever (IBTA, every driver): the sender waits until a receive is posted"}
	}
	return []string{fmt.Sprintf("rnr_retry %d: after %d RNR NAKs the send fails with IBV_WC_RNR_RETRY_EXC_ERR and the QP goes to ERR", t.RNRRetry, t.RNRRetry)}
}
