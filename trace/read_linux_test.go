package trace

import (
	"bufio"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cilium/ebpf/ringbuf"
)

// fakeRecords hands Read a fixed list of records (nil stands for a
// failed read), then blocks until closed or flushed, as the ring
// buffer does. A Flush keeps ringbuf.Reader's promise: the reads after
// it return every record queued, then one ErrFlushed, even when the
// reader was already waiting when the records were added.
type fakeRecords struct {
	mu       sync.Mutex
	recs     [][]byte
	flushing bool // a Flush not yet answered with ErrFlushed
	closed   chan struct{}
	once     sync.Once
	wake     chan struct{} // made by the first Flush or wait
}

func (f *fakeRecords) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushing = true
	select {
	case f.wakeLocked() <- struct{}{}:
	default:
	}
	return nil
}

// wakeLocked is the channel a Flush wakes a waiting ReadInto on; f.mu
// held.
func (f *fakeRecords) wakeLocked() chan struct{} {
	if f.wake == nil {
		f.wake = make(chan struct{}, 1)
	}
	return f.wake
}

// add queues more records. Like the ring's records written without a
// wakeup, they reach a waiting reader at its next Flush.
func (f *fakeRecords) add(recs ...[]byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recs = append(f.recs, recs...)
}

func (f *fakeRecords) SetDeadline(time.Time) {}

func (f *fakeRecords) ReadInto(r *ringbuf.Record) error {
	for {
		f.mu.Lock()
		if len(f.recs) > 0 {
			raw := f.recs[0]
			f.recs = f.recs[1:]
			f.mu.Unlock()
			if raw == nil {
				return errors.New("read sample data: unexpected EOF")
			}
			r.RawSample = raw
			return nil
		}
		if f.flushing {
			f.flushing = false
			f.mu.Unlock()
			return ringbuf.ErrFlushed
		}
		wake := f.wakeLocked()
		f.mu.Unlock()
		select {
		case <-f.closed:
			return ringbuf.ErrClosed
		case <-wake:
		}
	}
}

func (f *fakeRecords) Close() error {
	f.once.Do(func() { close(f.closed) })
	return nil
}

// pingpongRecords are the first n records of testdata/pingpong.hex.
func pingpongRecords(t *testing.T, n int) [][]byte {
	t.Helper()
	file, err := os.Open("testdata/pingpong.hex")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	var out [][]byte
	sc := bufio.NewScanner(file)
	for sc.Scan() && len(out) < n {
		raw, err := hex.DecodeString(strings.TrimSpace(sc.Text()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

// TestReadSkipsBadRecords: a record too short, one of an unknown kind
// and a failed read are each counted and skipped; the good records on
// either side still arrive, a failing Record writer is dropped with a
// notice, and Read ends only at Close, with ErrClosed.
func TestReadSkipsBadRecords(t *testing.T) {
	good := pingpongRecords(t, 2)
	unknown := make([]byte, rawSize)
	unknown[0] = 1 // a time; the kind (verb) stays 0, which trace never sends
	fake := &fakeRecords{recs: [][]byte{good[0], {1, 2, 3}, unknown, nil, good[1]}, closed: make(chan struct{})}
	var notes []string
	tr := &Tracer{rd: fake, book: newBook(nil), self: -1, boot: time.Unix(0, 0),
		opts: Options{Latency: time.Millisecond, Record: failingWriter{}, Notify: func(s string) { notes = append(notes, s) }}}
	for i, want := range good {
		e, err := tr.Read()
		if err != nil {
			t.Fatalf("Read %d: %v", i, err)
		}
		w, err := decode(want, tr.boot)
		if err != nil {
			t.Fatal(err)
		}
		if e.Verb != w.Verb || !e.Time.Equal(w.Time) {
			t.Errorf("Read %d: %s at %v, want %s at %v", i, e.Verb, e.Time, w.Verb, w.Time)
		}
	}
	if n := tr.Undecoded(); n != 3 {
		t.Errorf("Undecoded = %d, want 3 (short, unknown kind, failed read)", n)
	}
	done := make(chan error)
	go func() {
		_, err := tr.Read()
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Read ended before Close: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	tr.closed.Store(true)
	fake.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Close: %v, want ErrClosed", err)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "recording stopped") || !strings.Contains(notes[1], "skipped") {
		t.Errorf("notices %q: want the recording stopped, then the first skipped record", notes)
	}
	if tr.opts.Record != nil {
		t.Error("the failing Record writer was kept")
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }
