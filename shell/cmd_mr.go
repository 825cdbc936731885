package shell

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/rdma"
)

func init() {
	register(&command{
		name: "mr", aliases: []string{"reg_mr"}, usage: "mr [PD] [size=N] [access=FLAGS] [as=NAME]",
		summary: "register a memory region (ibv_reg_mr): a buffer the device may use, with its lkey and rkey",
		help: `The buffer is fresh, zeroed, page-aligned memory. access says what
the device may do with it: local_write (receives, and where RDMA reads and
atomics land), remote_write, remote_read, remote_atomic (what a peer may
do with the rkey). Remote write and atomic need local_write too.

examples:
  open; pd
  mr size=4096 access=local_write
  mr size=4096 access=local_write,remote_write,remote_read as=buf`,
		pos: []argKind{objArg(rdma.KindPD)},
		keys: func(*Shell, []string) []keySpec {
			return []keySpec{
				{name: "size", help: "bytes; default 4096", values: enumValues("4096", "", "65536", "")},
				{name: "access", help: "local_write,remote_write,remote_read,remote_atomic; default local_write",
					values: enumValues("local_write", "receives and local landing only", "local_write,remote_write", "a peer may RDMA-write it",
						"local_write,remote_write,remote_read,remote_atomic", "a peer may do anything")},
				asSpec,
			}
		},
		run: runMR,
	})
	register(&command{
		name: "write", usage: "write MR[OFFSET] TEXT | write MR[OFFSET] hex=BYTES",
		summary: "put text or bytes into a memory region (what the next send or RDMA write carries)",
		help: `examples:
  open; pd; mr
  write mr1 "PING"
  write mr1[100] "PONG"
  write mr1 hex=deadbeef`,
		pos:  []argKind{objArg(rdma.KindMR), {name: "text"}},
		keys: func(*Shell, []string) []keySpec { return []keySpec{{name: "hex", help: "bytes as hex digits"}} },
		run:  runWrite,
	})
	register(&command{
		name: "dump", aliases: []string{"hexdump", "read"}, usage: "dump MR[START:END]",
		summary: "hex-dump a memory region (what a receive or RDMA write left there)",
		help: `Without a range, the first 64 bytes.

examples:
  open; pd; mr; write mr1 "PING"
  dump mr1
  dump mr1[0:16]`,
		pos: []argKind{objArg(rdma.KindMR)},
		run: runDump,
	})
}

func runMR(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 1); err != nil {
		return Result{}, err
	}
	pd, err := s.pick(a, 0, rdma.KindPD)
	if err != nil {
		return Result{}, err
	}
	size, err := a.uint("size", 4096, 1<<30)
	if err != nil {
		return Result{}, err
	}
	access := rdma.AccessLocalWrite
	if v, ok := a.str("access"); ok {
		if access, err = parseAccess(v); err != nil {
			return Result{}, &Error{What: strings.TrimPrefix(err.Error(), "verbs: "), Err: err,
				Fix: "access is a comma list of local_write, remote_write, remote_read, remote_atomic"}
		}
	}
	as, err := s.newName(a)
	if err != nil {
		return Result{}, err
	}
	if err := a.unused([]string{"size", "access", "as"}); err != nil {
		return Result{}, err
	}
	mr, err := pd.pd.RegMR(int(size), access)
	if err != nil {
		return Result{}, failed("mr", err)
	}
	e := s.add(&entry{kind: rdma.KindMR, mr: mr, obj: mr, parent: pd}, as)
	return created(e, fmt.Sprintf("%d bytes at 0x%x, lkey 0x%x rkey 0x%x, access %s", mr.Len(), mr.Addr(), mr.LKey(), mr.RKey(), access),
		map[string]any{"size": mr.Len(), "addr": mr.Addr(), "lkey": mr.LKey(), "rkey": mr.RKey(), "access": access.String()}), nil
}

// span is a byte range of one of the session's MRs: MR, MR[off], MR[a:b].
type span struct {
	e        *entry
	off, len uint64
	open     bool // no end given: "to the end" or "whatever fits"
}

// parseSpan reads "mr1", "mr1[16]" or "mr1[0:4]" (END exclusive, either
// side optional) and checks it lies inside the MR.
func (s *Shell) parseSpan(w string) (span, error) {
	name, rng, hasRange := strings.Cut(w, "[")
	e, err := s.get(name, rdma.KindMR)
	if err != nil {
		return span{}, err
	}
	size := uint64(e.mr.Len())
	sp := span{e: e, off: 0, len: size, open: true}
	if !hasRange {
		return sp, nil
	}
	if !strings.HasSuffix(rng, "]") {
		return span{}, &Error{What: fmt.Sprintf("%q: a range is written %s[START:END] or %s[OFFSET]", w, name, name)}
	}
	rng = strings.TrimSuffix(rng, "]")
	lo, hi, isSlice := strings.Cut(rng, ":")
	start := uint64(0)
	if lo != "" {
		if start, err = parseUint(lo); err != nil {
			return span{}, &Error{What: fmt.Sprintf("%q: %q is not an offset", w, lo)}
		}
	}
	end := size
	if isSlice && hi != "" {
		if end, err = parseUint(hi); err != nil {
			return span{}, &Error{What: fmt.Sprintf("%q: %q is not an offset", w, hi)}
		}
		sp.open = false
	}
	if start > size || end > size || start > end {
		return span{}, &Error{What: fmt.Sprintf("%s is outside %s, which has %d bytes (offsets 0 to %d)", w, name, size, size),
			Why: "the device may only touch registered memory; a work request beyond it would fail with LOC_PROT_ERR (or REM_ACCESS_ERR at the peer)",
			Fix: "pick a range inside the region, or register a bigger one"}
	}
	sp.off, sp.len = start, end-start
	return sp, nil
}

// parsePeerSpan reads "peer.NAME[OFF]", a buffer the peer announced, and
// checks that n bytes fit there.
func (s *Shell) parsePeerSpan(w string, n uint64) (addr uint64, rkey uint32, err error) {
	name, rng, hasRange := strings.Cut(w, "[")
	m, ok := s.remote[name]
	if !ok {
		var known []string
		for k := range s.remote {
			known = append(known, k)
		}
		return 0, 0, &Error{What: "the peer has announced no " + name + suggest(name, known),
			Fix: "the peer runs `announce QP MR`, and this shell polls the receive that carries it"}
	}
	off := uint64(0)
	if hasRange {
		if off, err = parseUint(strings.TrimSuffix(strings.TrimSuffix(rng, "]"), ":")); err != nil {
			return 0, 0, &Error{What: fmt.Sprintf("%q: a remote buffer is written %s[OFFSET]", w, name)}
		}
	}
	if off > m.size || n > m.size-off { // not off+n > size: a huge off would wrap
		return 0, 0, &Error{What: fmt.Sprintf("%d bytes at offset %d do not fit in %s (%d bytes)", n, off, name, m.size),
			Why: "the peer would answer REM_ACCESS_ERR"}
	}
	return m.addr + off, m.rkey, nil
}

func runWrite(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 2); err != nil {
		return Result{}, err
	}
	sp, err := s.parseSpan(a.pos[0])
	if err != nil {
		return Result{}, err
	}
	var data []byte
	hx, hasHex := a.str("hex")
	switch {
	case hasHex && len(a.pos) == 2:
		return Result{}, usageErr(a.cmd, "give text or hex=, not both")
	case hasHex:
		if data, err = hex.DecodeString(strings.ReplaceAll(hx, ":", "")); err != nil {
			return Result{}, &Error{What: "hex=" + hx + " is not hex bytes", Fix: "pairs of hex digits, like hex=50494e47"}
		}
	case len(a.pos) == 2:
		data = []byte(a.pos[1])
	default:
		return Result{}, usageErr(a.cmd, "what should be written? give \"text\" or hex=BYTES")
	}
	if err := a.unused([]string{"hex"}); err != nil {
		return Result{}, err
	}
	if uint64(len(data)) > sp.len {
		return Result{}, &Error{What: fmt.Sprintf("%d bytes do not fit in %s at offset %d (%d bytes left)", len(data), sp.e.name, sp.off, sp.len)}
	}
	if _, err := sp.e.mr.WriteAt(data, int64(sp.off)); err != nil {
		return Result{}, failed("write", err)
	}
	return Result{Text: fmt.Sprintf("wrote %d bytes to %s at offset %d", len(data), sp.e.name, sp.off),
		Data: map[string]any{"mr": sp.e.name, "offset": sp.off, "bytes": len(data)}}, nil
}

func runDump(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	sp, err := s.parseSpan(a.pos[0])
	if err != nil {
		return Result{}, err
	}
	if sp.open && !strings.Contains(a.pos[0], ":") {
		sp.len = min(sp.len, 64)
	}
	buf := make([]byte, sp.len)
	if _, err := sp.e.mr.ReadAt(buf, int64(sp.off)); err != nil {
		return Result{}, failed("dump", err)
	}
	return Result{Text: hexdump(buf, sp.off), Data: map[string]any{"mr": sp.e.name, "offset": sp.off, "hex": hex.EncodeToString(buf), "text": printable(buf)}}, nil
}

// hexdump formats bytes like xxd: offset, 16 hex bytes, printable text.
func hexdump(b []byte, base uint64) string {
	var out strings.Builder
	for i := 0; i < len(b); i += 16 {
		row := b[i:min(i+16, len(b))]
		fmt.Fprintf(&out, "%08x  ", base+uint64(i))
		for j := 0; j < 16; j++ {
			if j < len(row) {
				fmt.Fprintf(&out, "%02x ", row[j])
			} else {
				out.WriteString("   ")
			}
			if j == 7 {
				out.WriteByte(' ')
			}
		}
		out.WriteString(" |" + printable(row) + "|\n")
	}
	return strings.TrimRight(out.String(), "\n")
}

func printable(b []byte) string {
	r := []byte(string(b))
	for i, c := range r {
		if c < 0x20 || c > 0x7e {
			r[i] = '.'
		}
	}
	return string(r)
}

// quoteText shows received bytes as a Go string without trailing zeros.
func quoteText(b []byte) string {
	return strconv.Quote(strings.TrimRight(string(b), "\x00"))
}
