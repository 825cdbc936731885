//go:build !linux || !cgo

package verbs

import (
	"errors"
	"strings"
	"testing"
)

// TestStubRefusesEverything runs in builds without libibverbs
// (CGO_ENABLED=0 go test ./verbs): every call that would reach the
// library fails with ErrUnsupported and says how to get a real build.
func TestStubRefusesEverything(t *testing.T) {
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "built without libibverbs") {
			t.Errorf("%s: %v, want ErrUnsupported saying it was built without libibverbs", what, err)
		}
	}
	_, err := Devices()
	check("Devices", err)
	_, err = Open("rxe0")
	check("Open", err)

	// A context with the stub's handle, as if Open had worked: the calls
	// below it reach the stub too.
	c := &Context{h: &ctxHandle{}, objects: map[*object]bool{}}
	_, err = c.AllocPD()
	check("AllocPD", err)
	_, err = c.CreateCompChannel()
	check("CreateCompChannel", err)
	_, err = c.CreateCQ(1, nil, 0)
	check("CreateCQ", err)
	_, err = c.QueryDevice()
	check("QueryDevice", err)
	if _, ok := <-c.Events(); ok {
		t.Error("Events delivered something in a stub build")
	}
	check("EventsErr", c.EventsErr())
}
