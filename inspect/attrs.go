package inspect

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Attribute decoding. A dump of 10,000 QPs carries about 150,000
// attributes; netlink.AttributeDecoder copies each one into a fresh slice,
// so this file walks struct nlattr (include/uapi/linux/netlink.h) in place
// instead: no copies, no allocations except for strings, and every length
// checked before it is used.

// nlaTypeMask clears NLA_F_NESTED and NLA_F_NET_BYTEORDER from nla_type.
const nlaTypeMask = 0x3fff

// attrIter walks the attributes of b: for it.next() { switch it.typ ... }.
// Accessors check the payload length and record the first error, after
// which next returns false; err reports it.
type attrIter struct {
	b   []byte
	typ Attr
	val []byte
	err error
}

func newAttrIter(b []byte) attrIter { return attrIter{b: b} }

// next advances to the next attribute.
func (it *attrIter) next() bool {
	if it.err != nil || len(it.b) == 0 {
		return false
	}
	if len(it.b) < 4 {
		it.err = fmt.Errorf("%d trailing bytes are too short for an attribute header", len(it.b))
		return false
	}
	l := int(binary.NativeEndian.Uint16(it.b))
	if l < 4 || l > len(it.b) {
		it.err = fmt.Errorf("attribute %d claims %d bytes, %d are left", binary.NativeEndian.Uint16(it.b[2:])&nlaTypeMask, l, len(it.b))
		return false
	}
	it.typ = Attr(binary.NativeEndian.Uint16(it.b[2:]) & nlaTypeMask)
	it.val = it.b[4:l]
	// Attributes are padded to 4 bytes (NLA_ALIGN); the last one may
	// lack its padding.
	adv := (l + 3) &^ 3
	if adv > len(it.b) {
		adv = len(it.b)
	}
	it.b = it.b[adv:]
	return true
}

func (it *attrIter) badLen(want int) {
	if it.err == nil {
		it.err = fmt.Errorf("%s: want %d bytes, got %d", attrName(it.typ), want, len(it.val))
	}
}

func (it *attrIter) u8() uint8 {
	if len(it.val) != 1 {
		it.badLen(1)
		return 0
	}
	return it.val[0]
}

func (it *attrIter) u32() uint32 {
	if len(it.val) != 4 {
		it.badLen(4)
		return 0
	}
	return binary.NativeEndian.Uint32(it.val)
}

func (it *attrIter) u64() uint64 {
	if len(it.val) != 8 {
		it.badLen(8)
		return 0
	}
	return binary.NativeEndian.Uint64(it.val)
}

// str returns a NUL-terminated string attribute (NLA_NUL_STRING).
func (it *attrIter) str() string {
	if i := bytes.IndexByte(it.val, 0); i >= 0 {
		return string(it.val[:i])
	}
	return string(it.val)
}

// strIntern is str for values that repeat in every message (the device
// name): it returns prev when the bytes are the same.
func (it *attrIter) strIntern(prev string) string {
	v := it.val
	if i := bytes.IndexByte(v, 0); i >= 0 {
		v = v[:i]
	}
	if string(v) == prev { // no allocation: the compiler compares in place
		return prev
	}
	return string(v)
}

// AttrSet records which attributes the kernel sent for an object, since
// many are optional (rqpn only for RC/UC, pid only for user objects, keys
// only with CAP_NET_ADMIN) and `rdma resource show` prints exactly the
// ones present. Types above 255 are not recorded.
type AttrSet [4]uint64

// Has reports whether the kernel sent attribute a.
func (s *AttrSet) Has(a Attr) bool {
	return a < 256 && s[a>>6]&(1<<(a&63)) != 0
}

// Add marks a as present.
func (s *AttrSet) Add(a Attr) {
	if a < 256 {
		s[a>>6] |= 1 << (a & 63)
	}
}
