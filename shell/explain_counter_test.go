package shell

import (
	"context"
	"strings"
	"testing"
)

// explain COUNTER says what the registry knows, without a device.
func TestExplainCounter(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"rnr_nak_retry_err", []string{"counter of bnxt_re, mlx5", "class retry", "requester side", "recoverable", "signal rnr", "min_rnr_timer"}},
		{"mlx5/req_remote_invalid_request", []string{"counter of mlx5", "class error", "terminal", "32 bits", "IBV_WC_REM_INV_REQ_ERR"}},
		{"symbol_error", []string{"counter of PortCounters", "16 bits", "stops at"}},
		{"retry_exceeded_err", []string{"counter of rxe", "terminal", "IBV_WC_RETRY_EXC_ERR"}},
		// One of a numbered family (DcRxFlitVl[0-7,15]): named as asked,
		// its driver found.
		{"DcRxFlitVl15", []string{"DcRxFlitVl15 (counter of hfi1)"}},
	} {
		r, err := s.Exec(context.Background(), "explain "+tc.word)
		if err != nil {
			t.Errorf("explain %s: %v", tc.word, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.Text, w) {
				t.Errorf("explain %s lacks %q:\n%s", tc.word, w, r.Text)
			}
		}
	}
	if _, err := s.Exec(context.Background(), "explain no_such_counter_anywhere"); err == nil || !strings.Contains(err.Error(), "counter") {
		t.Errorf("explain of an unknown word: %v, want a refusal that mentions counters", err)
	}
}
