package trace

import (
	"github.com/verbscope/verbscope/rdma"
)

// qpKey names a QP across devices: QP numbers are per device.
type qpKey struct {
	dev string
	qpn uint32
}

// qpSeen is what trace knows of a live QP from its events.
type qpSeen struct {
	state rdma.QPState
	typ   rdma.QPType
	port  uint8
}

// EnvFunc gives rdma.Check what it knows of a device's port; nil when
// it cannot tell.
type EnvFunc func(dev string, port uint8) *rdma.CheckEnv

// book follows each QP's state through its events, so that a modify can
// say which transition it was and a failed one what rdma.Check makes of
// it. Not safe for concurrent use: the reader owns it.
type book struct {
	qps map[qpKey]qpSeen
	env EnvFunc
}

func newBook(env EnvFunc) *book { return &book{qps: map[qpKey]qpSeen{}, env: env} }

// note updates the book with e and fills e.From and, for a failed
// modify, e.Check.
func (b *book) note(e *Event) {
	if e.Stage != StageCore || !e.HasQPN {
		return
	}
	k := qpKey{e.Dev, e.QPN}
	switch e.Verb {
	case VerbCreateQP:
		if e.Ret == 0 {
			b.qps[k] = qpSeen{state: rdma.QPStateReset, typ: e.QPType, port: e.Port}
		}
	case VerbDestroyQP:
		if e.Ret == 0 {
			delete(b.qps, k)
		}
	case VerbModifyQP:
		s, known := b.qps[k]
		s.typ = e.QPType
		e.From, e.FromKnown = s.state, known
		if e.Ret < 0 && known {
			e.Check = b.check(e, s)
		}
		if e.Ret != 0 {
			return
		}
		if e.Mask&rdma.AttrState != 0 {
			s.state = e.Attr.State
		}
		if e.Mask&rdma.AttrPort != 0 {
			s.port = e.Attr.Port
		}
		e.Port = s.port
		if known || e.Mask&rdma.AttrState != 0 {
			b.qps[k] = s
		}
	}
}

// check is rdma.Check's verdict on e's modify of a QP in state s.
func (b *book) check(e *Event, s qpSeen) *rdma.Verdict {
	next := s.state
	if e.Mask&rdma.AttrState != 0 {
		next = e.Attr.State
	}
	port := s.port
	if e.Mask&rdma.AttrPort != 0 {
		port = e.Attr.Port
	}
	var env *rdma.CheckEnv
	if b.env != nil {
		env = b.env(e.Dev, port)
	}
	if env != nil && s.state != rdma.QPStateReset {
		env.QPPort = s.port
	}
	attr := e.Attr
	v := rdma.Check(s.state, next, s.typ, e.Mask, &attr, env)
	return &v
}

// CachedEnv asks query once per device and port: device facts do not
// change while a trace runs. query is typically the device's own answer
// (ibv_query_device(3), ibv_query_port(3), ibv_query_gid_table(3)),
// which the cgo verbs package gives; trace itself stays pure Go.
func CachedEnv(query func(dev string, port int) *rdma.CheckEnv) EnvFunc {
	cache := map[qpKey]*rdma.CheckEnv{}
	return func(dev string, port uint8) *rdma.CheckEnv {
		if port == 0 {
			port = 1
		}
		k := qpKey{dev, uint32(port)}
		env, ok := cache[k]
		if !ok {
			env = query(dev, int(port))
			cache[k] = env
		}
		if env == nil {
			return nil
		}
		c := *env
		return &c
	}
}
