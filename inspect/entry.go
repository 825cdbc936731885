package inspect

// Entry is one object of a snapshot, whatever its kind: it prints as a
// line of `rdma resource show` (rdma-resource(8)), shares Object's
// fields, and copies itself out of the snapshot, so a consumer that
// keeps one object past its frame (the dashboard's rows) pins that
// object and not the snapshot's arrays.
type Entry interface {
	Rowed
	Base() *Object
	Detach() Entry
}

// Detach returns a copy of the QP that shares nothing with its snapshot's array.
func (q *QP) Detach() Entry { c := *q; return &c }

// Detach returns a copy of the CQ that shares nothing with its snapshot's array.
func (c *CQ) Detach() Entry { d := *c; return &d }

// Detach returns a copy of the MR that shares nothing with its snapshot's array.
func (m *MR) Detach() Entry { c := *m; return &c }

// Detach returns a copy of the PD that shares nothing with its snapshot's array.
func (p *PD) Detach() Entry { c := *p; return &c }

// Detach returns a copy of the context that shares nothing with its snapshot's array.
func (x *Context) Detach() Entry { c := *x; return &c }

// Detach returns a copy of the SRQ that shares nothing with its snapshot's array.
func (s *SRQ) Detach() Entry { c := *s; return &c }

// Detach returns a copy of the CM ID that shares nothing with its snapshot's array.
func (m *CMID) Detach() Entry { c := *m; return &c }
