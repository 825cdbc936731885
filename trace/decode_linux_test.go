package trace

import (
	"bufio"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// FuzzDecode feeds the decoder arbitrary ring buffer records (they come
// from the kernel, but a mismatched BPF object would send anything): it
// returns an event or an error, never panics, and the views of an event
// always render.
func FuzzDecode(f *testing.F) {
	file, err := os.Open("testdata/pingpong.hex")
	if err != nil {
		f.Fatal(err)
	}
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		raw, err := hex.DecodeString(strings.TrimSpace(sc.Text()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	file.Close()
	f.Add([]byte{})
	b := newBook(rxeEnv)
	f.Fuzz(func(t *testing.T, raw []byte) {
		e, err := decode(raw, time.Unix(0, 0))
		if err != nil {
			return
		}
		b.note(&e)
		_ = e.Text()
		if _, err := e.MarshalJSON(); err != nil {
			t.Errorf("MarshalJSON: %v", err)
		}
	})
}

func TestDecodeShort(t *testing.T) {
	if _, err := decode(make([]byte, rawSize-1), time.Unix(0, 0)); err == nil || !strings.Contains(err.Error(), "shorter than struct event") {
		t.Errorf("a short record: %v", err)
	}
	raw := make([]byte, rawSize)
	raw[unsafe.Offsetof(tracerEvent{}.Verb)] = 99
	if _, err := decode(raw, time.Unix(0, 0)); err == nil || !strings.Contains(err.Error(), "event kind 99") {
		t.Errorf("an unknown kind: %v", err)
	}
}
