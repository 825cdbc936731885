package verbs

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// Devices lists the RDMA devices of this host, as ibv_get_device_list(3)
// does. A host without RDMA (ENOSYS: the kernel has no ib_uverbs) or
// without devices gives an empty list and an error that says which, so
// callers can show the reason and go on.
func Devices() ([]DeviceInfo, error) {
	return listDevices()
}

// Context is an open device: struct ibv_context from ibv_open_device(3).
// Close it when done; Close destroys whatever was created from it first.
type Context struct {
	// Device is the device this context was opened on.
	Device DeviceInfo

	mu sync.Mutex
	h  *ctxHandle // nil once closed

	// The object graph: everything created from this context, for
	// teardown in dependency order.
	graphMu sync.Mutex
	objects map[*object]bool
	seq     uint64
	self    *object // the context itself, for leak reports

	// dataMu lets posts use MRs, MWs and AHs without locking each one:
	// posts hold it for reading, destroying an MR, MW or AH for writing,
	// so nothing a post names is freed while the library reads it.
	dataMu sync.RWMutex
	// reg maps C objects to their wrappers for completion and async events.
	reg registry
	// events is the async event reader, started by the first Events call.
	evOnce sync.Once
	events *eventReader
}

// Open opens the named device (ibv_open_device(3)).
func Open(name string) (*Context, error) {
	h, info, err := openDevice(name)
	if err != nil {
		return nil, err
	}
	c := &Context{Device: info, h: h, objects: map[*object]bool{}}
	c.self = &object{kind: "context", name: "context of " + info.Name}
	if trackLeaks.Load() {
		pcs := make([]uintptr, 16)
		c.self.created = pcs[:runtime.Callers(2, pcs)]
	}
	watch(c, c.self)
	return c, nil
}

// Close destroys every object created from the context, QPs first and
// completion channels last, then closes the device (ibv_close_device(3)).
// It is idempotent. If an object cannot be destroyed, the device stays
// open and Close says so: closing it would free the provider memory the
// survivors point into, and a later call on one would use it; open, they
// stay valid, and a later Close tries again.
func (c *Context) Close() error {
	if c == nil {
		return nil
	}
	err := c.closeAll()
	if n := c.survivors(); n > 0 {
		return &Error{Op: "ibv_close_device", Err: err,
			Hint: fmt.Sprintf("not closed: %d objects of the device could not be destroyed, and closing it would free what they use; the device stays open, so fix what failed and Close again", n)}
	}
	c.stopEvents()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return err
	}
	if cerr := c.h.close(); cerr != nil {
		return errors.Join(err, cerr)
	}
	c.h = nil
	if c.self != nil {
		c.self.mu.Lock()
		c.self.closed = true
		c.self.mu.Unlock()
	}
	return err // an object gone with an error after it (goneError)
}

// survivors counts the objects of the context not destroyed.
func (c *Context) survivors() int {
	c.graphMu.Lock()
	defer c.graphMu.Unlock()
	return len(c.objects)
}

// Closed reports whether the context was closed.
func (c *Context) Closed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.h == nil
}

// withCtx runs fn with the live device handle, or fails with ErrClosed.
func (c *Context) withCtx(op string, fn func(h *ctxHandle) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, err := c.handle(op)
	if err != nil {
		return err
	}
	return fn(h)
}

// handle returns the live platform handle or ErrClosed.
func (c *Context) handle(op string) (*ctxHandle, error) {
	if c == nil || c.h == nil {
		return nil, &Error{Op: op, Err: ErrClosed, Hint: "the device context was closed"}
	}
	return c.h, nil
}

// QueryDevice returns the device's attributes (ibv_query_device(3)).
func (c *Context) QueryDevice() (DeviceAttr, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, err := c.handle("ibv_query_device")
	if err != nil {
		return DeviceAttr{}, err
	}
	return h.queryDevice()
}

// QueryPort returns a port's attributes (ibv_query_port(3)); ports count
// from 1.
func (c *Context) QueryPort(port int) (PortAttr, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, err := c.handle("ibv_query_port")
	if err != nil {
		return PortAttr{}, err
	}
	if port < 1 || port > 255 {
		return PortAttr{}, &Error{Op: "ibv_query_port", Err: ErrNoDevice, Hint: fmt.Sprintf("port %d does not exist: ports count from 1", port)}
	}
	return h.queryPort(port)
}

// QueryGID returns one GID table entry with its type and netdev
// (ibv_query_gid_ex(3)). An empty slot fails with ENODATA on most
// providers.
func (c *Context) QueryGID(port, index int) (GIDEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, err := c.handle("ibv_query_gid_ex")
	if err != nil {
		return GIDEntry{}, err
	}
	return h.queryGID(port, index)
}

// GIDTable returns every populated GID entry of every port
// (ibv_query_gid_table(3)), sorted by port and index as the kernel keeps them.
func (c *Context) GIDTable() ([]GIDEntry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, err := c.handle("ibv_query_gid_table")
	if err != nil {
		return nil, err
	}
	return h.gidTable()
}

// NumCompVectors is the number of completion vectors (usually one per IRQ
// the device has for completions) that CQs can be spread across
// (struct ibv_context.num_comp_vectors; ibv_create_cq(3)).
func (c *Context) NumCompVectors() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, err := c.handle("num_comp_vectors")
	if err != nil {
		return 0, err
	}
	return h.numCompVectors(), nil
}
