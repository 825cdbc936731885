package cli

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/internal/rectest"
)

func TestRecordInfoAndExport(t *testing.T) {
	path := rectest.Small(t)
	code, out, errs := runCLI("record", "info", path)
	for _, want := range []string{"host       labhost · kernel 6.1.0", "readings   2 of the objects, 0 of sysfs, 1 keyframes", "objects    1 · 2 QP transitions", "gaps       none"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("record info: status %d, %q %s; want %q", code, out, errs, want)
		}
	}
	code, out, errs = runCLI("record", "export", path, "--csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || len(rows) != 4 {
		t.Fatalf("record export --csv: status %d, %v, %q %s", code, err, out, errs)
	}
	if got := strings.Join(rows[1][:11], ","); got != "lifetime,2026-12-01T09:24:05Z,2026-12-01T09:24:06Z,rxe0,qp,7,42,pp,RC,RTS,true" {
		t.Errorf("lifetime row %s", got)
	}
	trace := filepath.Join(t.TempDir(), "out.json")
	if code, _, errs := runCLI("record", "export", path, "--perfetto", trace); code != 0 {
		t.Fatalf("record export --perfetto: status %d %s", code, errs)
	}
	b, err := os.ReadFile(trace)
	if err != nil || !strings.Contains(string(b), `"name":"rxe0 QP 7","cat":"qp","ph":"b"`) {
		t.Errorf("perfetto output %s %v", b, err)
	}
	if st, err := os.Stat(trace); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("perfetto file mode: %v %v", st.Mode(), err)
	}
}

func TestRecordUsage(t *testing.T) {
	path := rectest.Small(t)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"record", "export", path}, 2, "give one of --csv, -j or --perfetto"},
		{[]string{"record", "export", path, "--csv", "-j"}, 2, "give one of"},
		{[]string{"record", "info"}, 2, "takes one FILE"},
		{[]string{"record", "play"}, 2, "takes no arguments but info FILE or export FILE"},
		{[]string{"record", "--max-size", "1XB"}, 2, "want a size such as 1GiB"},
		{[]string{"record", "info", filepath.Join(t.TempDir(), "none")}, 1, "no such file"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.says) {
			t.Errorf("%v: status %d %q; want %d saying %q", tc.args, code, errs, tc.code, tc.says)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "1048576": 1 << 20, "1GiB": 1 << 30, "500MiB": 500 << 20, "2G": 2 << 30, "1.5K": 1536} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseSize("lots"); err == nil {
		t.Errorf("parseSize(lots) took it")
	}
}

// TestRecordExportCSVGolden: the lifetimes and transitions of a real lab
// recording (rec/testdata/lab-session.vsrec: an ibv_rc_pingpong pair and
// a verbs shell's QP moved to ERR, recorded by rec's
// TestRecordSessionLab) as CSV, byte for byte (times in UTC).
func TestRecordExportCSVGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "rec", "testdata", "lab-session.vsrec"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "lab-session.vsrec") // opening it may write beside it
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI("record", "export", path, "--csv")
	if code != 0 {
		t.Fatalf("record export --csv: status %d: %s", code, errs)
	}
	if !strings.Contains(out, "ibv_rc_pingpong") || !strings.Contains(out, ",ERR,") {
		t.Errorf("the export lacks the pingpong pair or the move to ERR:\n%s", out)
	}
	golden(t, "record-lab-session-csv", out)
}
