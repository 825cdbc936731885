package view

import "strconv"

// The two ways a quantity is printed. What crosses the wire (the bytes
// and packets a port counted, their rates) is in SI's powers of 1000, as
// link rates and perftest's MB/sec are quoted; a size in memory (an MR,
// RLIMIT_MEMLOCK, VmPin, a file) is in IEC's powers of 1024, as the
// kernel sets and reports it (ulimit -l takes KiB; /proc/PID/status's
// "kB" are KiB, proc(5)).

// prefixes are the SI prefixes from kilo, binaryPrefixes the letters
// of the binary units from KiB; iecUnits name those units in a sentence.
const (
	prefixes       = "kMGTPE"
	binaryPrefixes = "KMGTPE"
)

var iecUnits = [...]string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// scaled divides v by base until it is below base or the prefixes run
// out: the quotient and how many times it divided.
func scaled(v, base float64) (float64, int) {
	i := 0
	for v >= base && i < len(prefixes) {
		v /= base
		i++
	}
	return v, i
}

// SI prints a count of traffic with an SI prefix and three significant
// digits at most: 999, 1.2k, 12.3M, 123G; below 1000 a fraction keeps one
// decimal (2.5). The caller adds the unit: "1.2kB", "3.4k pkts/s".
func SI(v float64) string {
	if v < 1000 {
		if v == float64(uint64(v)) {
			return strconv.FormatUint(uint64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	v, i := scaled(v, 1000)
	prec := 1
	if v >= 100 {
		prec = 0
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + prefixes[i-1:i]
}

// Bytes is a size in memory, in bytes: what an MR pins, a memlock limit
// (getrlimit(2) RLIMIT_MEMLOCK), VmPin, a recording's file.
type Bytes uint64

// String prints the size for a sentence, in binary units. A size that is
// a whole number of at most four digits in some unit prints exactly, in
// the largest such unit ("64 MiB", "8188 KiB", "1536 bytes"): a limit
// and what is pinned against it are read side by side, and rounding
// would make 8 MiB less 4 KiB look like the limit itself. Any other size
// is rounded to one decimal in the largest unit it fills ("117.7 MiB").
func (b Bytes) String() string {
	n := uint64(b)
	for i := len(iecUnits); i > 0; i-- {
		if u := uint64(1) << (10 * i); n >= u && n%u == 0 && n/u < 10000 {
			return strconv.FormatUint(n/u, 10) + " " + iecUnits[i-1]
		}
	}
	switch {
	case n == 1:
		return "1 byte"
	case n < 10000:
		return strconv.FormatUint(n, 10) + " bytes"
	}
	f, i := scaled(float64(n), 1024)
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + iecUnits[i-1]
}

// Short prints the size for a table column, in binary units with one
// decimal and the unit's letter, so the column's numbers line up:
// "4.0K", "258.1M", "1.5G"; below 1 KiB the bytes alone: "512".
func (b Bytes) Short() string {
	if b < 1024 {
		return strconv.FormatUint(uint64(b), 10)
	}
	f, i := scaled(float64(b), 1024)
	return strconv.FormatFloat(f, 'f', 1, 64) + binaryPrefixes[i-1:i]
}
