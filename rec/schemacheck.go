package rec

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/verbscope/verbscope/view"
)

// addedIn is the schema version that added each table a version 1
// file lacks (schema.go); its indexes came with it.
var addedIn = map[string]int{"irqs": 2, "shell": 3, "verdicts": 4}

// maxSchemaRows bounds what is read of a file's schema: verbscope's
// has some thirty rows.
const maxSchemaRows = 256

// maxWrongShown is how many of a schema's differences an error names.
const maxWrongShown = 6

// schemaRow is a row of sqlite_schema: what SQLite builds a table,
// index, view or trigger from when it reads the file.
type schemaRow struct {
	Type, Name, Table, SQL string
}

// wantSchema is sqlite_schema as create leaves it, by name: the same
// statements made in an empty database, so the check cannot drift from
// what schema.go says.
var wantSchema = sync.OnceValues(func() (map[string]schemaRow, error) {
	db, err := sql.Open("sqlite", "file:want?mode=memory")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if _, err := db.Exec(schema); err != nil {
		return nil, err
	}
	rows, err := schemaRows(context.Background(), db)
	if err != nil {
		return nil, err
	}
	m := map[string]schemaRow{}
	for _, r := range rows {
		m[r.Name] = r
	}
	return m, nil
})

// schemaRows reads sqlite_schema.
func schemaRows(ctx context.Context, db *sql.DB) ([]schemaRow, error) {
	rows, err := db.QueryContext(ctx, "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_schema LIMIT ?", maxSchemaRows+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []schemaRow
	for rows.Next() {
		var r schemaRow
		if err := rows.Scan(&r.Type, &r.Name, &r.Table, &r.SQL); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// checkSchema says whether db's schema is exactly the one verbscope
// writes at version: each table, index and column as create made them
// (the statements' very text), none missing, nothing else. A file that
// claims to be a recording but names a view or a trigger, a generated
// column, a table of its own, or a table with columns changed, is
// refused before any query reads it: a view of a recursive CTE in place
// of a table would otherwise run whenever a query named it.
func checkSchema(ctx context.Context, db *sql.DB, version int) error {
	want, err := wantSchema()
	if err != nil {
		return fmt.Errorf("rec: the schema to check against: %w", err)
	}
	got, err := schemaRows(ctx, db)
	if err != nil {
		// SQLite's words may quote the file's: Printable.
		return fmt.Errorf("%w: its schema cannot be read: %s (damaged or truncated, or not a database)", ErrNotRecording, view.Printable(err.Error()))
	}
	if len(got) > maxSchemaRows {
		return fmt.Errorf("%w: its schema has more than %d tables, indexes, views and triggers; verbscope writes %d", ErrNotRecording, maxSchemaRows, len(want))
	}
	var wrong []string
	seen := map[string]bool{}
	for _, g := range got {
		seen[g.Name] = true
		w, ok := want[g.Name]
		switch {
		case !ok || addedIn[w.Table] > version:
			wrong = append(wrong, fmt.Sprintf("%s %q is not verbscope's", g.Type, g.Name))
		case g.Type != w.Type:
			wrong = append(wrong, fmt.Sprintf("%q is a %s, verbscope writes a %s", g.Name, g.Type, w.Type))
		case g != w:
			wrong = append(wrong, fmt.Sprintf("%s %q is not as verbscope writes it", g.Type, g.Name))
		}
	}
	for name, w := range want {
		if !seen[name] && addedIn[w.Table] <= version {
			wrong = append(wrong, fmt.Sprintf("%s %q is missing", w.Type, name))
		}
	}
	if len(wrong) == 0 {
		return nil
	}
	sort.Strings(wrong)
	if n := len(wrong); n > maxWrongShown {
		wrong = append(wrong[:maxWrongShown], fmt.Sprintf("and %d more", n-maxWrongShown))
	}
	return fmt.Errorf("%w: its schema (version %d) is not the one verbscope writes, so it is not read: %s", ErrNotRecording, version, strings.Join(wrong, "; "))
}
