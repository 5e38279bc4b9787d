package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"casebook/internal/library"
	content "casebook/library"
)

// The store is built from the loader's good fixture library.
const goodLibrary = "../library/testdata/good"

func loadGood(t *testing.T) *library.Library {
	t.Helper()
	lib, problems, err := library.Load(os.DirFS(goodLibrary))
	if err != nil || len(problems) > 0 {
		t.Fatalf("fixture library: %v %v", err, problems)
	}
	return lib
}

// buildGood builds the fixture library into a fresh data dir.
func buildGood(t *testing.T) (*Store, *library.Library, string) {
	t.Helper()
	lib := loadGood(t)
	dir := t.TempDir()
	s, err := Build(context.Background(), dir, lib, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, lib, dir
}

var shared struct {
	once sync.Once
	dir  string
	s    *Store
	lib  *library.Library
	err  error
}

// readStore is one store built from the fixture and shared by the tests
// that only read, so the suite builds it once.
func readStore(t *testing.T) (*Store, *library.Library) {
	t.Helper()
	shared.once.Do(func() {
		if shared.lib, _, shared.err = library.Load(os.DirFS(goodLibrary)); shared.err != nil {
			return
		}
		if shared.dir, shared.err = os.MkdirTemp("", "casebook-store-test-"); shared.err == nil {
			shared.s, shared.err = Build(context.Background(), shared.dir, shared.lib, nil)
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.s, shared.lib
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.s != nil {
		shared.s.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

func TestBuildWritesOneFilePerHash(t *testing.T) {
	s, lib, dir := buildGood(t)
	if s.Hash() != lib.Hash {
		t.Errorf("Hash() = %s, want %s", s.Hash(), lib.Hash)
	}
	if want := pathFor(dir, lib.Hash); s.Path() != want {
		t.Errorf("Path() = %s, want %s", s.Path(), want)
	}
	for _, name := range dirNames(t, dir) {
		if filepath.Join(dir, name) != s.Path() && filepath.Join(dir, name) != s.Path()+"-wal" && filepath.Join(dir, name) != s.Path()+"-shm" {
			t.Errorf("Build left %s behind", name)
		}
	}
	var mode string
	var fk int
	if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
	if err := s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d (%v), want 1", fk, err)
	}
}

func TestOpenReusesTheFileForTheSameHash(t *testing.T) {
	ctx := context.Background()
	s, lib, dir := buildGood(t)
	before, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	s2, err := Open(ctx, dir, lib.Hash)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s2.Close()
	after, err := os.Stat(s2.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("Open rewrote the database instead of reusing it")
	}
	if n, p, err := s2.Count(ctx); err != nil || n != 4 || p != 2 {
		t.Errorf("Count = %d, %d, %v; want 4, 2", n, p, err)
	}
}

func TestOpenReportsStale(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		damage func(t *testing.T, s *Store)
	}{
		{"deleted", func(t *testing.T, s *Store) {
			s.Close()
			if err := os.Remove(s.Path()); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated to half", func(t *testing.T, s *Store) {
			s.Close()
			fi, _ := os.Stat(s.Path())
			if err := os.Truncate(s.Path(), fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}},
		{"emptied", func(t *testing.T, s *Store) {
			s.Close()
			if err := os.Truncate(s.Path(), 0); err != nil {
				t.Fatal(err)
			}
		}},
		{"garbage", func(t *testing.T, s *Store) {
			s.Close()
			fi, _ := os.Stat(s.Path())
			junk := make([]byte, fi.Size())
			rand.Read(junk)
			if err := os.WriteFile(s.Path(), junk, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"build never completed", func(t *testing.T, s *Store) {
			if _, err := s.db.Exec(`UPDATE meta SET value = '0' WHERE key = 'complete'`); err != nil {
				t.Fatal(err)
			}
			s.Close()
		}},
		{"built by an older schema", func(t *testing.T, s *Store) {
			if _, err := s.db.Exec(`DELETE FROM schema_migrations WHERE rowid = (SELECT MAX(rowid) FROM schema_migrations)`); err != nil {
				t.Fatal(err)
			}
			s.Close()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, lib, dir := buildGood(t)
			tt.damage(t, s)
			s2, err := Open(ctx, dir, lib.Hash)
			if err == nil {
				s2.Close()
				t.Fatal("Open trusted a damaged database")
			}
			if !IsStale(err) {
				t.Errorf("IsStale(%v) = false; a damaged file must mean rebuild, not fail", err)
			}
			// Building again over the damaged file repairs it.
			s3, err := Build(ctx, dir, lib, nil)
			if err != nil {
				t.Fatalf("rebuild: %v", err)
			}
			defer s3.Close()
			if n, _, err := s3.Count(ctx); err != nil || n != 4 {
				t.Errorf("after rebuild Count = %d, %v", n, err)
			}
		})
	}
}

func TestOpenOtherHashIsStale(t *testing.T) {
	_, _, dir := buildGood(t)
	_, err := Open(context.Background(), dir, "0123456789abcdef0123456789abcdef")
	if !IsStale(err) {
		t.Errorf("Open of a hash never built: err = %v, want stale", err)
	}
}

func TestPrune(t *testing.T) {
	s, lib, dir := buildGood(t)
	for _, name := range []string{
		"casebook-0123456789abcdef.db", "casebook-0123456789abcdef.db-wal", "casebook-0123456789abcdef.db-shm",
		"casebook-tmp-1234.db", "casebook-tmp-1234.db-journal", "notes.txt",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	Prune(dir, lib.Hash)
	var kept []string
	for _, name := range dirNames(t, dir) {
		if filepath.Join(dir, name) == s.Path() || filepath.Join(dir, name) == s.Path()+"-wal" || filepath.Join(dir, name) == s.Path()+"-shm" {
			continue
		}
		kept = append(kept, name)
	}
	if diff := cmp.Diff([]string{"notes.txt"}, kept); diff != "" {
		t.Errorf("files left besides the current database (-want +got):\n%s", diff)
	}
	if n, _, err := s.Count(context.Background()); err != nil || n != 4 {
		t.Errorf("the kept database no longer reads: %d, %v", n, err)
	}
}

// TestBuildKeepsForeignKeys checks every reference the build wrote. The
// build writes without SQLite enforcing them (openBuildDB), because the
// library it writes was validated whole; this is the check that the two
// agree, on the fixture and on the shipped library.
func TestBuildKeepsForeignKeys(t *testing.T) {
	shipped, problems, err := library.Load(content.FS)
	if err != nil {
		t.Fatalf("shipped library: %v %v", err, problems)
	}
	for name, lib := range map[string]*library.Library{"fixture": loadGood(t), "shipped": shipped} {
		s, err := Build(context.Background(), t.TempDir(), lib, problems)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := s.db.Query(`PRAGMA foreign_key_check`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var table, parent string
			var rowid, fk sql.NullInt64
			if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
				t.Fatal(err)
			}
			t.Errorf("%s: row %d of %s refers to a missing row of %s", name, rowid.Int64, table, parent)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		s.Close()
	}
}

// TestBuilt checks what tells the loader a start has a read model to
// reuse: a finished one, not a build left half done.
func TestBuilt(t *testing.T) {
	dir := t.TempDir()
	if Built(dir) {
		t.Error("an empty folder has a read model")
	}
	if err := os.WriteFile(filepath.Join(dir, tempPrefix+"1234.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if Built(dir) {
		t.Error("a build left half done counts as a read model")
	}
	_, _, built := buildGood(t)
	if !Built(built) {
		t.Error("a built read model is not seen")
	}
}
