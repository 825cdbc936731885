package inspect

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mdlayher/netlink"
)

// ErrNoDevice: the named RDMA device does not exist (or is in another
// network namespace in exclusive netns mode).
var ErrNoDevice = errors.New("no such RDMA device")

// Query selects what a resource dump covers, like the DEV and DEV/PORT
// arguments of rdma-resource(8).
type Query struct {
	// Dev limits the dump to one device by name; empty means all.
	Dev string
	// Port limits QP and CM_ID dumps to one port: the request carries
	// RDMA_NLDEV_ATTR_PORT_INDEX and the kernel skips objects of other
	// ports, and objects not yet bound to a port. Zero means all ports.
	// Other object kinds are per device and ignore it.
	Port uint32
	// DriverDetails sends RDMA_NLDEV_ATTR_DRIVER_DETAILS=1, which makes
	// kernels 6.9 and later include driver-internal objects and their
	// driver attributes (iproute2's -dd); older kernels ignore it and
	// send driver attributes always.
	DriverDetails bool
}

// kind describes one restrack object type: its nldev command, its table
// and entry attributes (fill_entries[] in nldev.c), whether the kernel
// dumps it per port, the attributes iproute2 requires of each entry, and
// how to decode its own attributes.
type kind[T any] struct {
	name         string
	cmd          Command
	table, entry Attr
	perPort      bool
	required     []Attr
	obj          func(x *T) *Object
	field        func(it *attrIter, x *T)
	port         func(x *T) uint32
	// resID, if set, is the object's restrack id, the order of the
	// kernel's table and so of a dump: what onceEach keeps each object
	// once by.
	resID func(x *T) uint32
}

// dumpKind dumps objects of one kind for the devices q selects.
func dumpKind[T any](c *Conn, k *kind[T], q Query, cc *commCache) ([]T, error) {
	ctx := context.Background()
	devs, err := c.devices(ctx)
	if err != nil {
		return nil, err
	}
	op := k.name + " dump"
	devs, err = selectDevices(op, devs, q.Dev)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, d := range devs {
		if out, err = dumpKindDev(ctx, c, k, d, q, cc, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// dumpKindDev appends the objects of one device to out. A QP or CM_ID
// dump without a port covers every port; the result is ordered as
// iproute2 prints it, which dumps port 0 (objects without a port) and then
// each port in turn (rd_exec_link in rdma/utils.c): one dump instead of
// one per port, so the kernel calls ib_query_qp() once per QP, and no QP
// that changes port between two dumps is shown twice or missed.
func dumpKindDev[T any](ctx context.Context, c *Conn, k *kind[T], d Device, q Query, cc *commCache, out []T, extra ...reqAttr) ([]T, error) {
	op := k.name + " dump: " + d.Name
	r := request{cmd: k.cmd, dump: true, attrs: []reqAttr{{typ: AttrDevIndex, u32: d.Index}}}
	r.attrs = append(r.attrs, extra...)
	if k.perPort && q.Port != 0 {
		r.attrs = append(r.attrs, reqAttr{typ: AttrPortIndex, u32: q.Port})
	}
	if q.DriverDetails {
		r.attrs = append(r.attrs, reqAttr{typ: AttrDriverDetails, u32: 1, u8: true})
	}
	start := len(out)
	hintKey := k.name + "\x00" + d.Name
	c.mu.Lock()
	out = slices.Grow(out, c.sizeHint[hintKey])
	c.mu.Unlock()
	name := d.Name
	err := c.do(ctx, op, r, func(m netlink.Message) error {
		var err error
		out, name, err = decodeKindMsg(k, m.Data, name, out)
		if err != nil {
			return malformed(op, err)
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	objs := out[start:]
	if k.resID != nil {
		objs = onceEach(k, objs)
		out = out[:start+len(objs)]
	}
	c.mu.Lock()
	if c.sizeHint == nil {
		c.sizeHint = map[string]int{}
	}
	c.sizeHint[hintKey] = len(objs) + len(objs)/16
	c.mu.Unlock()
	for i := range objs {
		k.obj(&objs[i]).fillOwner(cc)
	}
	if k.perPort && q.Port == 0 {
		sortByPort(k, objs)
	}
	if len(out) == 0 {
		out = nil // not an empty slice the size hint made
	}
	return out, nil
}

// decodeKindMsg decodes one dump message of kind k and appends its
// objects to out. name is the previous message's device name, reused to
// avoid an allocation per message. Objects are decoded in place at the
// end of out, and the iterator is shared by the entries of a message:
// through the kind's function values either would otherwise escape, one
// allocation per object.
func decodeKindMsg[T any](k *kind[T], data []byte, name string, out []T) ([]T, string, error) {
	h, tab, _, err := splitReply(data, k.table, name, nil)
	if err != nil {
		return out, name, err
	}
	it := new(attrIter)
	var zero T
	err = forEachEntry(tab, k.entry, func(i int, payload []byte) error {
		if len(payload) == 0 {
			// fill_res_ctx_entry leaves kernel contexts empty.
			return nil
		}
		if len(out) == cap(out) {
			// Double: past 256 elements append grows by a quarter,
			// and the slices of a 10,000-QP dump would add up to
			// five times its size, each page touched once.
			out = slices.Grow(out, max(len(out), 16))
		}
		out = append(out, zero)
		if err := decodeEntry(k, it, payload, h, &out[len(out)-1]); err != nil {
			out = out[:len(out)-1]
			return fmt.Errorf("%s entry %d%w", k.name, i, err)
		}
		return nil
	})
	return out, h.name, err
}

// decodeEntry decodes one object of kind k from its attributes (a dump's
// entry nest, or a get's whole reply) into x, of device h. The error
// begins with ": " or " lacks", to follow the entry's name.
func decodeEntry[T any](k *kind[T], it *attrIter, payload []byte, h devHandle, x *T) error {
	o := k.obj(x)
	o.DevIndex, o.DevName = h.index, h.name
	*it = newAttrIter(payload)
	for it.next() {
		if !o.common(it) {
			k.field(it, x)
			o.Attrs.Add(it.typ)
		}
	}
	if it.err != nil {
		return fmt.Errorf(": %w", it.err)
	}
	for _, a := range k.required {
		if !o.Attrs.Has(a) {
			return fmt.Errorf(" lacks %s", attrName(a))
		}
	}
	return nil
}

// sortByPort orders objects by port, stably: objects without a port
// first, then port 1, 2, ... as iproute2's per-port passes print them.
// Usually they are in order already and nothing moves.
// onceEach keeps each object of a dump once, as last read, in the
// kernel's order. nldev resumes a dump that takes several replies by a
// count of the table's entries the replies before walked
// (res_get_common_dumpit in drivers/infiniband/core/nldev.c: cb->args[0]),
// not by the last id sent: n objects filed below that count between two
// replies make the next one begin by sending again the last n the one
// before sent, each as it is now. It happens with every QP created
// during a dump: the GSI QP's restrack id carries its port above bit 24
// (rdma_restrack_add, drivers/infiniband/core/restrack.c), the top of
// the table, so a new QP is filed below it, and the GSI QP is sent again
// at the end of each reply after the walk first reached it (seen in the
// lab, dumping while a helper created 1,000 QPs). Within a dump the ids
// only rise, so an id that does not rise marks such a repeat, and the
// earlier reads it repeats are dropped.
func onceEach[T any](k *kind[T], objs []T) []T {
	out := objs[:0]
	for i := range objs {
		id := k.resID(&objs[i])
		for len(out) > 0 && k.resID(&out[len(out)-1]) >= id {
			out = out[:len(out)-1]
		}
		out = append(out, objs[i])
	}
	return out
}

func sortByPort[T any](k *kind[T], objs []T) {
	ports := make([]uint32, len(objs))
	sorted := true
	for i := range objs {
		ports[i] = k.port(&objs[i])
		if i > 0 && ports[i] < ports[i-1] {
			sorted = false
		}
	}
	if sorted {
		return
	}
	idx := make([]int, len(objs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ports[a], ports[b]) })
	moved := make([]T, len(objs))
	for i, j := range idx {
		moved[i] = objs[j]
	}
	copy(objs, moved)
}

// selectDevices keeps the device called name, or all when name is empty.
func selectDevices(op string, devs []Device, name string) ([]Device, error) {
	if name == "" {
		return devs, nil
	}
	for _, d := range devs {
		if d.Name == name {
			return []Device{d}, nil
		}
	}
	have := make([]string, len(devs))
	for i, d := range devs {
		have[i] = d.Name
	}
	return nil, opError(fmt.Sprintf("%s: %q (devices: %v)", op, name, have), ErrNoDevice, nil)
}
