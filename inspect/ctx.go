package inspect

// Context is one user verbs context (an open of /dev/infiniband/uverbsN,
// ibv_open_device(3)) as RDMA_NLDEV_CMD_RES_CTX_GET reports it
// (fill_res_ctx_entry in drivers/infiniband/core/nldev.c; `rdma resource
// show ctx`, rdma-resource(8)).
type Context struct {
	Object
	CtxN uint32 // RDMA_NLDEV_ATTR_RES_CTXN
}

var ctxKind = kind[Context]{
	name: "ctx", cmd: CmdResCtxGet, table: AttrResCtx, entry: AttrResCtxEntry,
	required: []Attr{AttrResCtxN}, // rdma/res-ctx.c res_ctx_line
	obj:      func(x *Context) *Object { return &x.Object },
	field: func(it *attrIter, x *Context) {
		if it.typ == AttrResCtxN {
			x.CtxN = it.u32()
		}
	},
}

// Contexts dumps the user contexts of the devices q selects.
func (c *Conn) Contexts(q Query) ([]Context, error) {
	return dumpKind(c, &ctxKind, q, c.freshComm())
}
