package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// maxFuncLines is the longest a function of cli may be (issue 34): a
// command longer than this does more than read its words and call a
// package, or holds a help text that wants a name of its own.
const maxFuncLines = 80

// doorOffences lists, for the non-test Go files of dir, every go
// statement and every function (declared or literal, its body's braces
// included) longer than maxFuncLines, as "file:line: what".
func doorOffences(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []string
	for _, path := range files {
		name := filepath.Base(path)
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var what string
			switch n := n.(type) {
			case *ast.GoStmt:
				what = "a go statement: cli starts no goroutines"
			case *ast.FuncDecl:
				what = funcTooLong(fset, n, "func "+n.Name.Name)
			case *ast.FuncLit:
				what = funcTooLong(fset, n, "a function literal")
			}
			if what != "" {
				out = append(out, fmt.Sprintf("%s:%d: %s", name, fset.Position(n.Pos()).Line, what))
			}
			return true
		})
	}
	return out, nil
}

// funcTooLong says what is wrong with a function over maxFuncLines, or
// "" when it is short enough.
func funcTooLong(fset *token.FileSet, n ast.Node, name string) string {
	lines := fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1
	if lines <= maxFuncLines {
		return ""
	}
	return fmt.Sprintf("%s is %d lines, over %d: split it where the parts have names", name, lines, maxFuncLines)
}

// TestDoor holds cli to being a door (issue 34): words and flags, then
// one call into a package. No goroutines, no function over 80 lines.
func TestDoor(t *testing.T) {
	got, err := doorOffences(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range got {
		t.Error(o)
	}
}

// TestDoorOffences checks the check: a function of 81 lines and a go
// statement are found, one of 80 lines and a test file are not.
func TestDoorOffences(t *testing.T) {
	dir := t.TempDir()
	fn := func(name string, lines int) string {
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 1\n", lines-2) + "}\n\n"
	}
	src := "package p\n\n" + fn("short", maxFuncLines) + fn("long", maxFuncLines+1) + "func spawn() {\n\tgo short()\n}\n"
	for name, text := range map[string]string{"p.go": src, "p_test.go": "package p\n\nfunc f() { go f() }\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := doorOffences(dir)
	if err != nil {
		t.Fatal(err)
	}
	longAt := 3 + maxFuncLines + 1
	want := []string{
		fmt.Sprintf("p.go:%d: func long is %d lines, over %d: split it where the parts have names", longAt, maxFuncLines+1, maxFuncLines),
		fmt.Sprintf("p.go:%d: a go statement: cli starts no goroutines", longAt+maxFuncLines+1+2),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
