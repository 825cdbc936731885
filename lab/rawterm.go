package lab

import (
	"fmt"
	"io"

	"golang.org/x/term"
)

// rawTerminal puts the terminal fd in raw mode, output processing
// included (no "\n" to "\r\n", no tab expansion), and returns the state
// to restore: the guest's console is then the only one deciding what
// the screen gets.
func rawTerminal(fd int) (*term.State, error) {
	st, err := term.MakeRaw(fd)
	if err != nil {
		return nil, fmt.Errorf("lab: the terminal cannot go raw for the VM's console: %w", err)
	}
	return st, nil
}

// forwardKeys copies the terminal's input to qemu until either end
// closes. Ctrl-A x reaches qemu's console multiplexer as before.
func forwardKeys(qemu io.WriteCloser, keys io.Reader) {
	io.Copy(qemu, keys)
	qemu.Close()
}
