// Package doccheck finds exported names without a doc comment, for the
// tests (Require) that hold rdma/, verbs/, inspect/, sysfsmon/ and oob/
// to the rule that every exported name says what it mirrors
// (DEVELOPERS.md).
package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// undocumented lists "file: name" for every exported declaration of the
// package in dir (tests excluded) that has no doc comment. Methods count
// when their receiver type is exported; a name in a documented group
// (const or var block with a comment) counts as documented.
func undocumented(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, fmt.Errorf("doccheck: %w", err)
	}
	fset := token.NewFileSet()
	var out []string
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("doccheck: %w", err)
		}
		for _, d := range f.Decls {
			for _, name := range missing(d) {
				out = append(out, fmt.Sprintf("%s: %s", file, name))
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

func missing(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() || d.Doc != nil || !exportedReceiver(d) {
			return nil
		}
		return []string{"func " + d.Name.Name}
	case *ast.GenDecl:
		var out []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
					out = append(out, "type "+s.Name.Name)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() && d.Doc == nil && s.Doc == nil && s.Comment == nil {
						out = append(out, n.Name)
					}
				}
			}
		}
		return out
	}
	return nil
}

// exportedReceiver is true for functions and for methods of exported types.
func exportedReceiver(d *ast.FuncDecl) bool {
	if d.Recv == nil {
		return true
	}
	t := d.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return !ok || id.IsExported()
}

// Require fails t for every exported name of the package in dir without
// a doc comment; each package's test calls it on ".".
func Require(t testing.TB, dir string) {
	t.Helper()
	names, err := undocumented(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		t.Errorf("no doc comment: %s", n)
	}
}
