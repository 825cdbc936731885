package oracle

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParsePerftestRecorded reads the tables ib_send_lat and ib_write_bw
// printed on rxe0 in the lab (loopback, 2 bytes and 64 KiB).
func TestParsePerftestRecorded(t *testing.T) {
	for file, want := range map[string]Perftest{
		"testdata/ib_send_lat-rxe0.txt": {"#bytes": 2, "#iterations": 1000, "t_min[usec]": 11.53, "t_max[usec]": 3036.68,
			PerftestTypical: 12.42, "t_avg[usec]": 14.34, "t_stdev[usec]": 12.06, PerftestP99: 80.62, "99.9% percentile[usec]": 3036.68},
		"testdata/ib_write_bw-rxe0.txt": {"#bytes": 65536, "#iterations": 5000, "BW peak[MB/sec]": 71.58, PerftestBWAverage: 69.50, PerftestMsgRate: 0.001112},
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParsePerftest(string(data))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", file, diff)
		}
	}
}

// A run whose clock calibration failed parses, but is not Finite.
func TestParsePerftestFailedCalibration(t *testing.T) {
	out := " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n" +
		" 2       1000          inf            inf          inf      \t       inf         \t-nan   \t\tinf     \t\tinf    \n"
	p, err := ParsePerftest(out)
	if err != nil || p.Finite() {
		t.Errorf("ParsePerftest = %v, %v; want a table that is not Finite", p, err)
	}
	if q, _ := ParsePerftest(" #bytes BW peak[MB/sec]\n 8 1.5\n"); !q.Finite() {
		t.Error("a normal table is Finite")
	}
}

func TestParsePerftestErrors(t *testing.T) {
	for _, tc := range []struct{ out, want string }{
		{"", "no perftest result table"},
		{"Couldn't connect to 10.0.0.1:18515\n", "no perftest result table"},
		{" #bytes #iterations    t_min[usec]\n", "no result row"},
		{" #bytes #iterations    t_min[usec]\n 2 1000\n", "2 values for 3 columns"},
		{" #bytes #iterations    BW peak[MB/sec]\n 2 1000 fast\n", "not a number"},
	} {
		if _, err := ParsePerftest(tc.out); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePerftest(%q) = %v, want an error saying %q", tc.out, err, tc.want)
		}
	}
}

func FuzzParsePerftest(f *testing.F) {
	for _, file := range []string{"testdata/ib_send_lat-rxe0.txt", "testdata/ib_write_bw-rxe0.txt"} {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(string(data))
		}
	}
	f.Add(" #bytes BW peak[MB/sec]\n 1 2\n")
	f.Fuzz(func(t *testing.T, out string) {
		p, err := ParsePerftest(out)
		if err == nil && len(p) == 0 {
			t.Fatal("a table without columns parsed as a result")
		}
	})
}
