package deploy

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// promtool runs Debian's promtool (package prometheus, lab/packages.txt)
// and fails the test with its output when it fails.
func promtool(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("promtool", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestRulesAndConfig(t *testing.T) {
	if out := promtool(t, "check", "rules", "verbscope.rules.yml"); !strings.Contains(out, "SUCCESS: 11 rules found") {
		t.Errorf("promtool check rules: want 11 rules:\n%s", out)
	}
	promtool(t, "check", "config", "prometheus.yml")
	promtool(t, "test", "rules", "verbscope.rules.test.yml")
}

// exported are the metric names verbscope export can serve, read from
// the export package's golden expositions and its counter tables.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	names := map[string]bool{}
	files, err := filepath.Glob("../export/testdata/TestExpositionGolden/*.golden")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden expositions in ../export/testdata/TestExpositionGolden: %v", err)
	}
	typ := regexp.MustCompile(`(?m)^# TYPE (\S+) `)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range typ.FindAllStringSubmatch(string(b), -1) {
			names[m[1]] = true
		}
	}
	names["verbscope_build_info"] = true
	return names
}

// Expressions is every PromQL expression of the dashboard: its panels'
// targets and its variables' queries.
func expressions(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	var exprs []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	return exprs
}

// TestNamesExist: every verbscope_ metric the rules and the dashboard use
// is one the exporter serves (a renamed metric breaks no alert silently).
func TestNamesExist(t *testing.T) {
	names := exported(t)
	rules, err := os.ReadFile("verbscope.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(rules) + strings.Join(expressions(t), "\n")
	// A name followed by "_(" is the head of a regular expression over
	// names (the dashboard's error panel), not a name.
	used := regexp.MustCompile(`verbscope_[a-z_]+[a-z](_\()?`).FindAllString(text, -1)
	if len(used) < 20 {
		t.Fatalf("only %d metric names found in the rules and the dashboard", len(used))
	}
	for _, n := range used {
		if !names[n] && !strings.HasSuffix(n, "_(") {
			t.Errorf("%s is used but verbscope export serves no such metric", n)
		}
	}
}

// TestUnit: systemd-analyze verify accepts the unit (its program swapped
// for one that exists on the build host).
func TestUnit(t *testing.T) {
	b, err := os.ReadFile("verbscope-export.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), "verbscope-export.service")
	if err := os.WriteFile(unit, []byte(strings.ReplaceAll(string(b), "/usr/local/bin/verbscope", "/bin/true")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("systemd-analyze", "verify", unit).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
