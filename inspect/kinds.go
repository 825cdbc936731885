package inspect

import (
	"context"
	"fmt"
	"reflect"

	"github.com/verbscope/verbscope/rdma"
)

// resourceKind is what inspect knows of one kind `rdma resource show`
// dumps (rdma-resource(8); the kernel's enum rdma_restrack_type): where a
// Snapshot keeps its objects, how to dump it, and each object's number.
// resourceKinds is the one list of them: whatever walks every kind
// (Snapshot's dumps, EachObject, DumpRows, and a recording's reader
// through Snapshot.Append, Share and Reserve) goes through it, so a kind
// is added here.
type resourceKind struct {
	kind Kind
	// each calls fn with every object of the kind in s.
	each func(s *Snapshot, fn func(k Kind, o *Object, id uint32, x Rowed))
	// dumpDev appends device d's objects of the kind to s (Snapshot).
	dumpDev func(ctx context.Context, c *Conn, d Device, q Query, cc *commCache, s *Snapshot) error
	// rows dumps the kind and hands each object's row to add (DumpRows).
	rows func(c *Conn, q Query, driver bool, add func(Row), owners *[]*Object) error
	// reuse gives dst src's slice of the kind (shared: a delivered
	// Snapshot is never written); Snapshot.Reuse carries its
	// generation with it.
	reuse func(dst, src *Snapshot)
	// equal reports whether a and b hold equal objects of the kind
	// (Snapshot.keepEqual).
	equal func(a, b *Snapshot) bool
	// reserve makes s's slice of the kind anew with room for n objects
	// (Snapshot.Reserve); add appends a copy of x when it is of the kind
	// (Snapshot.Append).
	reserve func(s *Snapshot, n int)
	add     func(s *Snapshot, x Rowed) bool
}

// kindOf builds a resourceKind from the kind's netlink dump, its slice
// in a Snapshot, its dump alone and its number.
func kindOf[T any, P interface {
	*T
	Rowed
	Base() *Object
	AppendRow(r Row, driver bool) Row
}](k Kind, nk *kind[T], of func(*Snapshot) *[]T, dump func(*Conn, Query) ([]T, error), id func(*T) uint32) resourceKind {
	return resourceKind{
		kind: k,
		each: func(s *Snapshot, fn func(Kind, *Object, uint32, Rowed)) {
			objs := *of(s)
			for i := range objs {
				p := P(&objs[i])
				fn(k, p.Base(), id(&objs[i]), p)
			}
		},
		dumpDev: func(ctx context.Context, c *Conn, d Device, q Query, cc *commCache, s *Snapshot) (err error) {
			objs := of(s)
			start := len(*objs)
			*objs, err = dumpKindDev(ctx, c, nk, d, q, cc, *objs)
			// Each object once. nldev resumes a dump that takes
			// several replies by a count of the entries it walked, and
			// objects filed below that count meanwhile make the next
			// reply resend the last ones sent: every QP created during
			// a dump is filed below the GSI QP, whose id carries its
			// port (onceEach in dump.go, which keeps each QP once).
			// The other kinds get their ids as they are filed, each
			// above all the others, so this compaction of a reply that
			// begins with the object the last one ended on only guards
			// them.
			n := len(compactLast((*objs)[start:], func(a, b *T) bool {
				return id(a) == id(b) && (nk.port == nil || nk.port(a) == nk.port(b))
			}))
			*objs = (*objs)[:start+n]
			return err
		},
		reuse: func(dst, src *Snapshot) { *of(dst) = *of(src) },
		reserve: func(s *Snapshot, n int) {
			*of(s) = nil // as appends leave a kind of none
			if n > 0 {
				*of(s) = make([]T, 0, n)
			}
		},
		add: func(s *Snapshot, x Rowed) bool {
			p, ok := x.(P)
			if ok {
				*of(s) = append(*of(s), *p)
			}
			return ok
		},
		equal: func(a, b *Snapshot) bool {
			x, y := *of(a), *of(b)
			return len(x) == len(y) && (len(x) == 0 || reflect.DeepEqual(x, y))
		},
		rows: func(c *Conn, q Query, driver bool, add func(Row), owners *[]*Object) error {
			objs, err := dump(c, q)
			if err != nil {
				return err
			}
			var row Row
			for i := range objs {
				p := P(&objs[i])
				row = p.AppendRow(row[:0], driver)
				add(row)
				if owners != nil {
					*owners = append(*owners, p.Base())
				}
			}
			return nil
		},
	}
}

// resourceKinds are the kinds in rdma.ResourceKinds' order, which is
// also Generations'.
var resourceKinds = [numKinds]resourceKind{
	kindOf(rdma.KindQP, &qpKind, func(s *Snapshot) *[]QP { return &s.QPs }, (*Conn).QPs, func(q *QP) uint32 { return q.LQPN }),
	kindOf(rdma.KindCQ, &cqKind, func(s *Snapshot) *[]CQ { return &s.CQs }, (*Conn).CQs, func(c *CQ) uint32 { return c.CQN }),
	kindOf(rdma.KindMR, &mrKind, func(s *Snapshot) *[]MR { return &s.MRs }, (*Conn).MRs, func(m *MR) uint32 { return m.MRN }),
	kindOf(rdma.KindPD, &pdKind, func(s *Snapshot) *[]PD { return &s.PDs }, (*Conn).PDs, func(p *PD) uint32 { return p.PDN }),
	kindOf(rdma.KindCtx, &ctxKind, func(s *Snapshot) *[]Context { return &s.Contexts }, (*Conn).Contexts, func(x *Context) uint32 { return x.CtxN }),
	kindOf(rdma.KindSRQ, &srqKind, func(s *Snapshot) *[]SRQ { return &s.SRQs }, (*Conn).SRQs, func(q *SRQ) uint32 { return q.SRQN }),
	kindOf(rdma.KindCMID, &cmidKind, func(s *Snapshot) *[]CMID { return &s.CMIDs }, (*Conn).CMIDs, func(m *CMID) uint32 { return m.CMIDN }),
}

// kindOfKind is k's entry of resourceKinds, nil for a kind `rdma
// resource show` does not dump.
func kindOfKind(k Kind) *resourceKind {
	for i := range resourceKinds {
		if resourceKinds[i].kind == k {
			return &resourceKinds[i]
		}
	}
	return nil
}

// DumpRows dumps the objects of kind k as `rdma resource show K` does
// and hands each one's row to add, one Row reused for them all (copy what
// you keep); driver adds the driver attributes (-dd). When owners is not
// nil, each object's shared fields are appended to it (a recording's
// process names). A kind it does not dump is an error.
func (c *Conn) DumpRows(k Kind, q Query, driver bool, add func(Row), owners *[]*Object) error {
	if rk := kindOfKind(k); rk != nil {
		return rk.rows(c, q, driver, add, owners)
	}
	return fmt.Errorf("inspect: %q is not a kind rdma resource show dumps (%v)", k, rdma.ResourceKinds())
}

// compactLast drops from s, in order, every element the same as the one
// after it: of each run, the last (the newest read) is kept.
func compactLast[T any](s []T, same func(a, b *T) bool) []T {
	out := s[:0]
	for i := range s {
		if i+1 < len(s) && same(&s[i], &s[i+1]) {
			continue
		}
		out = append(out, s[i])
	}
	return out
}
