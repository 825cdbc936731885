package oob

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"strconv"
)

// messageSize is the length of one address message on the wire: the
// size of the C buffer "0000:000000:000000:" plus 32 GID digits plus the
// terminating NUL (rc_pingpong.c sends the whole buffer).
const messageSize = 4 + 1 + 6 + 1 + 6 + 1 + 32 + 1

// DefaultPort is the TCP port ibv_rc_pingpong listens on without -p.
const DefaultPort = 18515

// done is the client's last word: "done" with its NUL, as rc_pingpong
// writes sizeof "done" bytes.
var done = []byte("done\x00")

// Dest is one side's address, struct pingpong_dest of rc_pingpong.c: what
// the peer needs for its RTR transition (DEST_QPN, RQ_PSN and the AV).
type Dest struct {
	LID uint16 // the port's LID; 0 on RoCE, where the GID addresses
	QPN uint32 // 24 bits
	PSN uint32 // the first packet sequence number, 24 bits
	// GID is the port GID, all zero when the sender ran without -g
	// (then there is no GRH and the LID must do).
	GID [16]byte
}

// HasGID reports whether the peer sent a GID, the test rc_pingpong makes
// (a non-zero interface ID, the GID's last 8 bytes) before it builds a
// GRH.
func (d Dest) HasGID() bool { return !bytes.Equal(d.GID[8:], make([]byte, 8)) }

// String prints the address the way rc_pingpong prints its "local
// address" line.
func (d Dest) String() string {
	return fmt.Sprintf("LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s", d.LID, d.QPN, d.PSN, net.IP(d.GID[:]))
}

// ErrFormat is wrapped by every failure to read a peer's message in
// rc_pingpong's format.
var ErrFormat = errors.New("oob: malformed address message")

// marshal encodes d as one wire message of messageSize bytes, as
// rc_pingpong.c's sprintf does. QPN and PSN
// must fit in 24 bits (the C side's buffer has room for six digits).
func (d Dest) marshal() ([]byte, error) {
	if d.QPN > 0xffffff || d.PSN > 0xffffff {
		return nil, fmt.Errorf("oob: marshal %s: QPN and PSN are 24-bit numbers", d)
	}
	msg := make([]byte, 0, messageSize)
	msg = fmt.Appendf(msg, "%04x:%06x:%06x:", d.LID, d.QPN, d.PSN)
	// pingpong.c writes the GID as four big-endian 32-bit words in hex,
	// which is simply its 16 bytes in order.
	msg = fmt.Appendf(msg, "%x", d.GID[:])
	return append(msg, 0), nil
}

// parse decodes one wire message. It accepts what rc_pingpong's sscanf
// would read from a well-formed peer (hex fields separated by colons, the
// GID as exactly 32 hex digits, anything after a NUL ignored) and
// refuses the rest with an error wrapping ErrFormat that says which field
// is wrong.
func parse(msg []byte) (Dest, error) {
	if i := bytes.IndexByte(msg, 0); i >= 0 {
		msg = msg[:i]
	}
	fields := bytes.Split(msg, []byte(":"))
	if len(fields) != 4 {
		return Dest{}, fmt.Errorf("%w: %q has %d colon-separated fields, want LID:QPN:PSN:GID", ErrFormat, msg, len(fields))
	}
	var d Dest
	lid, err := hexField("LID", fields[0], 16)
	if err != nil {
		return Dest{}, err
	}
	d.LID = uint16(lid)
	qpn, err := hexField("QPN", fields[1], 24)
	if err != nil {
		return Dest{}, err
	}
	psn, err := hexField("PSN", fields[2], 24)
	if err != nil {
		return Dest{}, err
	}
	d.QPN, d.PSN = uint32(qpn), uint32(psn)
	g := fields[3]
	if len(g) != 32 {
		return Dest{}, fmt.Errorf("%w: GID %q has %d hex digits, want 32", ErrFormat, g, len(g))
	}
	for i := range d.GID {
		b, err := strconv.ParseUint(string(g[2*i:2*i+2]), 16, 8)
		if err != nil {
			return Dest{}, fmt.Errorf("%w: GID %q is not hex", ErrFormat, g)
		}
		d.GID[i] = byte(b)
	}
	return d, nil
}

// hexField parses one hex number of at most bits bits.
func hexField(name string, f []byte, bits int) (uint64, error) {
	if len(f) == 0 || len(f) > 8 {
		return 0, fmt.Errorf("%w: %s %q is not 1 to 8 hex digits", ErrFormat, name, f)
	}
	v, err := strconv.ParseUint(string(f), 16, bits)
	if err != nil {
		return 0, fmt.Errorf("%w: %s %q is not a %d-bit hex number", ErrFormat, name, f, bits)
	}
	return v, nil
}
