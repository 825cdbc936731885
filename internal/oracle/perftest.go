package oracle

import (
	"bufio"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Perftest is the result table a perftest tool (ib_send_lat, ib_write_bw,
// ...) prints at the end of a run: the column names of its header line
// ("#bytes", "t_typical[usec]", "99% percentile[usec]", "BW average[MB/sec]",
// "MsgRate[Mpps]", ...) mapped to the numbers in the row below it. MB in
// perftest's bandwidth columns is 2^20 bytes (perftest_parameters.c).
type Perftest map[string]float64

// Column names the benchmarks read, as perftest prints them.
const (
	PerftestTypical   = "t_typical[usec]"
	PerftestP99       = "99% percentile[usec]"
	PerftestBWAverage = "BW average[MB/sec]"
	PerftestMsgRate   = "MsgRate[Mpps]"
)

// Finite reports whether every number in the table is finite: perftest
// prints inf and -nan when its calibration of the CPU clock failed.
func (p Perftest) Finite() bool {
	for _, v := range p {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	return true
}

// ParsePerftest finds the first header line of a perftest result table
// (it starts with "#bytes") and reads the row of numbers under it.
func ParsePerftest(out string) (Perftest, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	var cols []string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cols == nil {
			if strings.HasPrefix(line, "#bytes") {
				cols = perftestColumns(line)
			}
			continue
		}
		if line == "" || strings.HasPrefix(line, "---") {
			continue
		}
		vals := strings.Fields(line)
		if len(vals) != len(cols) {
			return nil, fmt.Errorf("oracle: perftest row %q has %d values for %d columns %q", line, len(vals), len(cols), cols)
		}
		p := Perftest{}
		for i, v := range vals {
			if v == "-nan" || v == "nan" { // C's printf of NaN
				v = "NaN"
			}
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("oracle: perftest column %s: %q is not a number", cols[i], v)
			}
			p[cols[i]] = f
		}
		return p, nil
	}
	if cols == nil {
		return nil, fmt.Errorf("oracle: no perftest result table (a line starting with #bytes) in the output; did the run fail?")
	}
	return nil, fmt.Errorf("oracle: perftest printed a header but no result row")
}

// perftestColumns splits a header line into column names. Names may
// contain one space ("99% percentile[usec]", "BW peak[MB/sec]") and
// adjacent names may be one space apart ("#bytes #iterations"), so words
// are joined until one ends a name: a word starting with '#' or ending
// with ']'.
func perftestColumns(header string) []string {
	var cols []string
	var cur []string
	for _, w := range strings.Fields(header) {
		cur = append(cur, w)
		if strings.HasPrefix(w, "#") || strings.HasSuffix(w, "]") {
			cols = append(cols, strings.Join(cur, " "))
			cur = nil
		}
	}
	if len(cur) > 0 {
		cols = append(cols, strings.Join(cur, " "))
	}
	return cols
}
