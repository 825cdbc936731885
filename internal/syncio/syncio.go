// Package syncio holds writers that several goroutines share: a script's
// output and its progress lines, the two VMs of a lab pair, a test
// program's stdout and stderr. Each Write goes through whole, never
// interleaved with another.
package syncio

import (
	"bytes"
	"io"
	"sync"
)

// Writer serializes the writes to the writer it wraps.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p to the wrapped writer, alone.
func (l *Writer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Buffer is a bytes.Buffer that goroutines write and another reads.
type Buffer struct {
	w Writer
	b bytes.Buffer
}

// NewBuffer returns an empty Buffer.
func NewBuffer() *Buffer {
	b := &Buffer{}
	b.w.w = &b.b
	return b
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) { return b.w.Write(p) }

// String returns what was written so far.
func (b *Buffer) String() string {
	b.w.mu.Lock()
	defer b.w.mu.Unlock()
	return b.b.String()
}
