package rec

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// craft is a real recording changed by stmts, as someone who hands
// over a crafted file would change it.
func craft(t testing.TB, stmts ...string) string {
	t.Helper()
	path := record(t, WriterOptions{})
	db, err := openRW(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("craft: %s: %v", s, err)
		}
	}
	return path
}

// bigRows is a recursive CTE of 40 rows of 2 MB each: what a view
// in place of a table hands every query that names it (unbounded, it
// takes all the memory there is).
const bigRows = `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 40) SELECT 'k' || n, hex(zeroblob(1000000)) FROM r`

// TestOpenRefusesCraftedSchema: a file with a recording's
// application_id and version but a schema of its own (a view or a
// trigger, a generated column, a table or index changed, added or
// missing) is refused by Open, saying what differs, before any query
// runs what it defines.
func TestOpenRefusesCraftedSchema(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stmts []string
		says  string
	}{
		{"host a view", []string{"DROP TABLE host", "CREATE VIEW host(key, value) AS " + bigRows}, `"host" is a view, verbscope writes a table`},
		{"objects a view", []string{"DROP TABLE objects", "CREATE VIEW objects AS SELECT 1 AS id"}, `"objects" is a view`},
		{"trigger", []string{"CREATE TRIGGER t AFTER INSERT ON gaps BEGIN SELECT 1; END"}, `trigger "t" is not verbscope's`},
		{"generated column", []string{"DROP TABLE gaps",
			"CREATE TABLE gaps (seq INTEGER NOT NULL, t INTEGER NOT NULL, what TEXT NOT NULL, detail TEXT GENERATED ALWAYS AS (hex(zeroblob(1000000))) VIRTUAL)",
			"CREATE INDEX gaps_seq ON gaps (seq)"}, `table "gaps" is not as verbscope writes it`},
		{"table of its own", []string{"CREATE TABLE extra (x)"}, `table "extra" is not verbscope's`},
		{"table missing", []string{"DROP TABLE counters"}, `table "counters" is missing`},
		{"index changed", []string{"DROP INDEX objects_seq", "CREATE INDEX objects_seq ON objects (seq, body)"}, `index "objects_seq" is not as verbscope writes it`},
		{"newer table in an older file", []string{"DROP TABLE shell", "PRAGMA user_version = 1"}, `table "irqs" is not verbscope's`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := craft(t, tc.stmts...)
			r, err := Open(context.Background(), path)
			if err == nil {
				r.Close()
				t.Fatalf("Open took a crafted schema")
			}
			if !errors.Is(err, ErrNotRecording) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), path) {
				t.Errorf("Open: %v\nwant %v naming the file and saying %s", err, ErrNotRecording, tc.says)
			}
		})
	}
}

// TestOpenRefusesLinkedSidecars: a -wal or -shm beside a recording
// that is a link (to a file SQLite would then read as the log, or write
// as its index) is refused, and its target left alone.
func TestOpenRefusesLinkedSidecars(t *testing.T) {
	for _, sfx := range sidecars {
		path := record(t, WriterOptions{})
		target := filepath.Join(t.TempDir(), "target")
		if err := os.WriteFile(target, []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path+sfx); err != nil {
			t.Fatal(err)
		}
		r, err := Open(context.Background(), path)
		if err == nil {
			readAll(context.Background(), r)
			r.Close()
			t.Errorf("Open took a recording whose %s is a link", sfx)
		} else if !strings.Contains(err.Error(), "not followed") {
			t.Errorf("Open with a linked %s: %v; want it to say the link is not followed", sfx, err)
		}
		if b, err := os.ReadFile(target); err != nil || string(b) != "precious" {
			t.Errorf("the link's target: %q %v", b, err)
		}
	}
}

// TestReadBoundsValue: a column longer than maxValue is an error when
// read, not an allocation of what the file claims.
func TestReadBoundsValue(t *testing.T) {
	path := craft(t, fmt.Sprintf("INSERT INTO gaps (seq, t, what, detail) VALUES (1, 0, 'big', CAST(zeroblob(%d) AS TEXT))", maxValue+1))
	r := openT(t, path)
	_, err := r.Info(context.Background())
	if err == nil || !strings.Contains(err.Error(), "too big") || !strings.Contains(err.Error(), path) {
		t.Errorf("Info of a recording with a %d-byte gap: %v; want too big, naming the file", maxValue+1, err)
	}
}

// TestOpenReadsOnly: reading a recording writes nothing to it, even a
// hot rollback journal left with it (which a read-write open plays
// into the file), and a write through the Reader's database fails. With
// no -wal beside it (no writer), nothing is made beside it either.
func TestOpenReadsOnly(t *testing.T) {
	ctx := context.Background()
	for _, withWAL := range []bool{false, true} {
		t.Run(fmt.Sprintf("wal=%v", withWAL), func(t *testing.T) {
			path := hotJournal(t)
			if withWAL {
				copyFile(t, os.DevNull, path+"-wal")
			}
			before := snapshotDir(t, filepath.Dir(path), withWAL)
			r, err := Open(ctx, path)
			if err == nil {
				readAll(ctx, r)
				if _, err := r.db.ExecContext(ctx, "DELETE FROM readings"); err == nil {
					t.Errorf("a DELETE through the Reader's database worked")
				}
				r.Close()
			} else if !strings.Contains(err.Error(), "never finished") {
				t.Errorf("Open: %v; want it to say the journal holds a write never finished", err)
			}
			if after := snapshotDir(t, filepath.Dir(path), withWAL); after != before {
				t.Errorf("reading the recording changed its folder:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// hotJournal is a recording in rollback-journal mode copied, with its
// -journal, in the middle of a transaction that had written to the
// file: the journal is hot.
func hotJournal(t *testing.T) string {
	t.Helper()
	src := craft(t, "PRAGMA journal_mode = DELETE")
	db, err := openRW(src)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("INSERT INTO gaps (seq, t, what, detail) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150) SELECT i, 0, 'g', hex(zeroblob(2000)) FROM n"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// A small cache spills changed pages to the file before the commit.
	for _, s := range []string{"PRAGMA cache_size = 8", "UPDATE gaps SET detail = hex(zeroblob(2100))"} {
		if _, err := tx.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "hot.vsrec")
	for _, sfx := range []string{"", "-journal"} {
		copyFile(t, src+sfx, path+sfx)
	}
	return path
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// snapshotDir is the names, sizes, times and contents' hashes of the
// files in dir; but a -shm, when SQLite may make one.
func snapshotDir(t *testing.T, dir string, shm bool) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		if shm && strings.HasSuffix(e.Name(), "-shm") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := e.Info()
		fmt.Fprintf(&b, "%s %d %s %x; ", e.Name(), len(data), st.ModTime().Format(time.RFC3339Nano), sha256.Sum256(data))
	}
	return b.String()
}

// TestInfoBoundsRows: Info reads at most maxHostKeys host keys and
// maxInfoGaps gaps of a file that holds more, and counts the gaps left.
func TestInfoBoundsRows(t *testing.T) {
	many := func(n int) string {
		return fmt.Sprintf("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < %d) SELECT ", n)
	}
	path := craft(t,
		"INSERT INTO host (key, value) "+many(maxHostKeys*2)+"'k' || i, 'v' FROM r",
		"INSERT INTO gaps (seq, t, what, detail) "+many(maxInfoGaps+5)+"1, i, 'missed', '' FROM r")
	in, err := openT(t, path).Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Host) > maxHostKeys || len(in.Gaps) != maxInfoGaps || in.MoreGaps != 5 {
		t.Errorf("Info read %d host keys, %d gaps and %d more; want at most %d, %d and 5", len(in.Host), len(in.Gaps), in.MoreGaps, maxHostKeys, maxInfoGaps)
	}
}
