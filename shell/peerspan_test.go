package shell

import (
	"strings"
	"testing"
)

// parsePeerSpan refuses any span outside the announced buffer, however
// large the offset: off+n must not wrap around to look small.
func TestParsePeerSpan(t *testing.T) {
	s := New(Options{})
	s.remote["peer.buf"] = remoteMR{addr: 0x1000, rkey: 7, size: 4096}
	for _, tc := range []struct {
		word    string
		n       uint64
		addr    uint64 // 0: refused
		wantErr string
	}{
		{"peer.buf", 4096, 0x1000, ""},
		{"peer.buf[4000]", 96, 0x1000 + 4000, ""},
		{"peer.buf[4096]", 0, 0x1000 + 4096, ""},
		{"peer.buf[4000]", 97, 0, "do not fit"},
		{"peer.buf[4097]", 0, 0, "do not fit"},
		{"peer.buf[18446744073709551615]", 1, 0, "do not fit"},    // off+n wraps to 0
		{"peer.buf[18446744073709551600]", 4096, 0, "do not fit"}, // off+n wraps to 4080
		{"peer.nope", 1, 0, "announced no peer.nope"},
	} {
		addr, rkey, err := s.parsePeerSpan(tc.word, tc.n)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s, %d bytes: %#x %v, want an error %q", tc.word, tc.n, addr, err, tc.wantErr)
			}
			continue
		}
		if err != nil || addr != tc.addr || rkey != 7 {
			t.Errorf("%s, %d bytes: %#x rkey %d %v, want %#x rkey 7", tc.word, tc.n, addr, rkey, err, tc.addr)
		}
	}
}
