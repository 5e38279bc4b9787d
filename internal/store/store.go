// Package store is the SQLite read model of the library. It is derived data:
// built from the Markdown in one pass, keyed by the content hash, and only
// read afterwards. Deleting the file is always safe.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"casebook/migrations"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// ErrNotFound is returned when an incident, playbook or term does not exist.
var ErrNotFound = errors.New("not found")

// errStale means a database file exists but was built from other content or
// is damaged; the caller rebuilds.
var errStale = errors.New("store: stale or damaged database")

// Store is an open read model.
type Store struct {
	db    *sql.DB
	path  string
	hash  string
	cache cache
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Hash is the content hash the model was built from.
func (s *Store) Hash() string { return s.hash }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// fileName is the database file for a content hash. One file per hash makes a
// rebuild a new file beside the old one, swapped in by the caller.
func fileName(dir, hash string) string {
	return filepath.Join(dir, "casebook-"+short(hash)+".db")
}

// Built reports whether dir holds the read model of some library: a start
// with none has nothing to reuse and will build one.
func Built(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "casebook-*.db"))
	for _, p := range m {
		if !strings.HasPrefix(filepath.Base(p), tempPrefix) {
			return true
		}
	}
	return false
}

func short(hash string) string {
	if len(hash) > 16 {
		return hash[:16]
	}
	return hash
}

func openDB(path string) (*sql.DB, error) {
	return openDSN(path, "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)")
}

// openBuildDB opens a file that Build is filling. Nothing reads it until it
// is complete and renamed into place, and a failed build deletes it, so it
// needs neither a write-ahead log nor syncs (the rollback journal is kept
// in memory, so a failed statement still rolls back), and a page cache
// large enough to hold the indexes being filled keeps SQLite from reading
// its own pages back from disk: at 10,000 incidents those reads and the
// WAL were a third of the build. The cache is memory outside Go's heap at
// the cold load's peak (the index is built beside it): 8 MiB builds in the
// same CPU time as 16 MiB and lowers that peak by about 10 MiB. Foreign
// keys are not enforced while it is filled: every row comes from a library
// validated whole (unknown terms and playbooks are problems, not rows), and
// checking each insert's parents was a fifth of the build, 2.5–3.0 s against
// 2.0–2.2 s at 10,000 incidents. TestBuildKeepsForeignKeys checks the
// references of a built store; the store as served enforces them.
func openBuildDB(path string) (*sql.DB, error) {
	return openDSN(path, "?_pragma=foreign_keys(0)&_pragma=journal_mode(MEMORY)&_pragma=synchronous(OFF)&_pragma=cache_size(-8192)&_pragma=temp_store(MEMORY)")
}

func openDSN(path, pragmas string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+pragmas)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return db, nil
}

// migrate applies every migration not yet recorded, each in its own
// transaction, in file-name order.
func migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY)`); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil {
			return fmt.Errorf("store: check migration %s: %w", name, err)
		}
		if n > 0 {
			continue
		}
		src, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			return err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(src)); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migration %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name) VALUES (?)`, name); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: record migration %s: %w", name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store: commit migration %s: %w", name, err)
		}
	}
	return nil
}

// SchemaVersion is the number of migrations this build knows; a database
// built by another version is rebuilt rather than trusted.
func SchemaVersion() int {
	names, _ := fs.Glob(migrations.FS, "*.sql")
	return len(names)
}

// readIdleConns is how many connections a read model keeps open between
// requests.
const readIdleConns = 8

// Open opens the existing read model for hash in dir. It returns errStale
// (wrapped) when the file is missing, damaged or was built from other content.
func Open(ctx context.Context, dir, hash string) (*Store, error) {
	return open(ctx, dir, hash, true)
}

// open is Open; check runs SQLite's quick_check, which reads every page
// (75 MB at 10,000 incidents). Build skips it for the file it has just
// written and synced.
func open(ctx context.Context, dir, hash string, check bool) (*Store, error) {
	path := fileName(dir, hash)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: %v", errStale, err)
	}
	db, err := openDB(path)
	if err != nil {
		return nil, err
	}
	// database/sql keeps two idle connections by default: under a dozen
	// concurrent page requests the rest were closed after each query and
	// reopened for the next, and closing a SQLite connection (freeing its
	// page cache) cost as much as the query.
	db.SetMaxIdleConns(readIdleConns)
	s := &Store{db: db, path: path, hash: hash}
	if err := s.verify(ctx, check); err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: %v", errStale, err)
	}
	return s, nil
}

// OpenUnchecked is Open without the integrity check, for a caller that
// runs Check beside its other work: the check reads every page, about a
// quarter of a warm start at 10,000 incidents.
func OpenUnchecked(ctx context.Context, dir, hash string) (*Store, error) {
	return open(ctx, dir, hash, false)
}

// Check runs SQLite's quick_check on the file. A damaged file is errStale
// (wrapped): remove it (Remove) and build it again.
func (s *Store) Check(ctx context.Context) error {
	if err := s.quickCheck(ctx); err != nil {
		return fmt.Errorf("%w: %v", errStale, err)
	}
	return nil
}

func (s *Store) quickCheck(ctx context.Context) error {
	var res string
	if err := s.db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return fmt.Errorf("quick_check: %s", res)
	}
	return nil
}

// Remove deletes the read model built for hash from dir; it is derived
// data. Close every Store reading it first.
func Remove(dir, hash string) {
	final := fileName(dir, hash)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(final + suffix)
	}
}

// verify checks schema version and content hash, and with check the
// file's integrity.
func (s *Store) verify(ctx context.Context, check bool) error {
	if check {
		if err := s.quickCheck(ctx); err != nil {
			return err
		}
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
		return err
	}
	if n != SchemaVersion() {
		return fmt.Errorf("schema version %d, want %d", n, SchemaVersion())
	}
	var h, complete string
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'content_hash'`).Scan(&h); err != nil {
		return err
	}
	if err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'complete'`).Scan(&complete); err != nil {
		return err
	}
	if h != s.hash || complete != "1" {
		return fmt.Errorf("built from %s, want %s", short(h), short(s.hash))
	}
	return nil
}

// IsStale reports whether err means "rebuild", as opposed to a real failure.
func IsStale(err error) bool { return errors.Is(err, errStale) }

// Prune removes database files of content hashes other than keep, and
// leftovers of interrupted builds, from dir. Keep every hash that an open
// Store still reads: a new connection to a removed file would find an empty
// database.
func Prune(dir string, keep ...string) {
	entries, _ := os.ReadDir(dir)
next:
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "casebook-") {
			continue
		}
		for _, h := range keep {
			if strings.HasPrefix(name, filepath.Base(fileName(dir, h))) {
				continue next
			}
		}
		os.Remove(filepath.Join(dir, name))
	}
}
