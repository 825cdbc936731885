package rec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzOpen reads any bytes as a recording: Open and every read either
// work or return an error; none panics or hangs.
func FuzzOpen(f *testing.F) {
	good, err := os.ReadFile(record(f, WriterOptions{KeyEvery: 2}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("SQLite format 3\x00"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "f.vsrec")
		for _, sfx := range []string{"", "-wal", "-shm"} {
			os.Remove(p + sfx)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		r, err := Open(ctx, p)
		if err != nil {
			return
		}
		defer r.Close()
		_ = readAll(ctx, r)
	})
}

// FuzzSchema changes a real recording's schema with any statements
// (what a crafted file can hold, not only damaged bytes): Open refuses
// the file or its schema is verbscope's, and every read of what it took
// ends, with or without an error.
func FuzzSchema(f *testing.F) {
	for _, s := range []string{
		"DROP TABLE host; CREATE VIEW host(key, value) AS " + bigRows,
		"DROP TABLE objects; CREATE VIEW objects AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n AS id FROM r",
		"CREATE TRIGGER t AFTER INSERT ON gaps BEGIN SELECT 1; END",
		"DROP TABLE gaps; CREATE TABLE gaps (seq INTEGER NOT NULL, t INTEGER NOT NULL, what TEXT NOT NULL, detail TEXT GENERATED ALWAYS AS (hex(zeroblob(1000000))) VIRTUAL); CREATE INDEX gaps_seq ON gaps (seq)",
		"CREATE TABLE extra (x)",
		"ALTER TABLE objects ADD COLUMN x DEFAULT (randomblob(100))",
		"DROP INDEX objects_seq; CREATE INDEX objects_seq ON objects (seq) WHERE length(body) > 0",
		"PRAGMA user_version = 1",
		"UPDATE host SET value = char(27) || ']2;pwn' || char(7) WHERE key = 'hostname'",
	} {
		f.Add(s)
	}
	good, err := os.ReadFile(record(f, WriterOptions{KeyEvery: 2}))
	if err != nil {
		f.Fatal(err)
	}
	want, err := wantSchema()
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, stmts string) {
		p := filepath.Join(dir, "f.vsrec")
		for _, sfx := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(p + sfx)
		}
		if err := os.WriteFile(p, good, 0o600); err != nil {
			t.Fatal(err)
		}
		// The crafting itself is bounded: a statement that would run
		// for ever is cut short, and the file is what it left.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		if db, err := openRW(p); err == nil {
			for _, s := range strings.Split(stmts, ";") {
				db.ExecContext(ctx, s)
			}
			db.Close()
		}
		cancel()
		ctx = context.Background()
		r, err := Open(ctx, p)
		if err != nil {
			return
		}
		defer r.Close()
		rows, err := schemaRows(ctx, r.db)
		if err != nil {
			t.Fatalf("the schema of a file Open took: %v", err)
		}
		for _, g := range rows {
			if w, ok := want[g.Name]; !ok || g != w {
				t.Fatalf("Open took a file whose schema has %+v", g)
			}
		}
		_ = readAll(ctx, r)
	})
}
