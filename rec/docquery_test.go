package rec

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// docQuery finds docs/record.md's example queries: a ```sql block
// whose first line is "-- query: NAME".
var docQuery = regexp.MustCompile("(?s)```sql\n-- query: ([a-z-]+)\n(.*?)```")

// queryRows runs q and returns its rows as text (NULL as "NULL").
func queryRows(ctx context.Context, r *Reader, q string) ([][]string, error) {
	rows, err := r.db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				row[i] = "NULL"
			case []byte:
				row[i] = string(v)
			default:
				row[i] = fmt.Sprint(v)
			}
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

// docQueries returns the docs' queries by name.
func docQueries(t testing.TB) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../docs/record.md")
	if err != nil {
		t.Fatal(err)
	}
	qs := map[string]string{}
	for _, m := range docQuery.FindAllStringSubmatch(string(b), -1) {
		qs[m[1]] = m[2]
	}
	return qs
}

func TestDocQueries(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 2}))
	want := map[string][][]string{
		"to-err":       {{"rxe0", "30", "300", "victim", "2026-12-01T02:47:01.500Z", "400", "verbscope", `{"qp_state":"ERR"}`, "NULL"}},
		"mr-only-grew": {{"rxe0", "200", "leaky", "1", "4"}},
		"qp-lives": {
			{"rxe0", "17", "pingpong", "02:47:01.000", "02:47:04.000", "INIT RTS gone"},
			{"rxe0", "30", "victim", "02:47:00.000", "02:47:01.500", "RTS ERR"},
			{"rxe0", "40", "idle", "02:47:00.000", "02:47:00.000", "RTS"},
		},
		"shell-commands": {
			{"02:47:00.200", "400", "script", "open", "opened rxe0"},
			{"02:47:01.400", "400", "script", "modify qp1 err", "qp1: RTS → ERR"},
		},
	}
	qs := docQueries(t)
	if len(qs) != len(want) {
		t.Errorf("docs/record.md has queries %v, the test checks %d", qs, len(want))
	}
	for name, q := range qs {
		got, err := queryRows(context.Background(), r, q)
		if err != nil {
			t.Errorf("query %s: %v", name, err)
			continue
		}
		if diff := cmp.Diff(want[name], got); diff != "" {
			t.Errorf("query %s rows (-want +got):\n%s", name, diff)
		}
	}
}
