package front

import (
	"errors"
	"syscall"
	"testing"
)

func TestErrorRendering(t *testing.T) {
	tests := []struct {
		name string
		e    *Error
		want string
	}{
		{"what only", &Error{What: "no device open"}, "no device open"},
		{"why and fix", &Error{What: "modify qp1 rtr: refused", Why: "dest_qp_num is missing\nthe peer's QPN", Fix: "add dest_qp_num=N"},
			"modify qp1 rtr: refused\n  why: dest_qp_num is missing\n       the peer's QPN\n  fix: add dest_qp_num=N"},
		{"output first", &Error{Output: "qp1 RESET→INIT with:\n  port 1\n", What: "qp1 RESET→INIT refused", Why: "no port"},
			"qp1 RESET→INIT with:\n  port 1\nqp1 RESET→INIT refused\n  why: no port"},
		{"fix only", &Error{What: "unknown command", Fix: "`help` lists the commands"}, "unknown command\n  fix: `help` lists the commands"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%s: Error() = %q, want %q", tt.name, got, tt.want)
		}
	}
	err := error(&Error{What: "x", Err: syscall.EINVAL})
	if !errors.Is(err, syscall.EINVAL) {
		t.Error("errors.Is does not reach the errno under an *Error")
	}
}
