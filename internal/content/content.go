// Package content runs the load pipeline — library.Load, store.Build,
// search index, triage catalogue — and holds the current result. A reload
// builds a complete new Content aside and swaps it in with one atomic store,
// so a request in flight keeps reading the Content it started with.
package content

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"casebook/internal/library"
	"casebook/internal/store"
	"casebook/internal/triage"
)

// Content is one loaded library and its read models. It is immutable once
// published.
type Content struct {
	Hash      string
	Taxonomy  *library.Taxonomy
	Store     *store.Store
	Triage    *triage.Catalog
	Problems  []library.Problem
	LoadedAt  time.Time
	Incidents int
	Playbooks int
	Warm      bool // the read models were reused and nothing was re-parsed
	extras    Extras
}

// Extras are the read models other packages add to a Content (search index,
// triage catalogue). They are built by Builders so this package does not
// depend on them.
type Extras map[string]any

// Extra returns a read model registered under name.
func (c *Content) Extra(name string) any { return c.extras[name] }

// Builder adds a read model to a Content. lib returns the parsed library;
// on a warm start it parses on first call, so a builder that can reuse what
// it persisted for c.Hash without the library never pays for parsing.
type Builder struct {
	Name  string
	Build func(ctx context.Context, lib func() (*library.Library, error), c *Content) (any, error)
	Close func(v any)
}

// ErrRebuild tells the loader a warm start is impossible and it must parse.
var ErrRebuild = errors.New("content: read model must be rebuilt")

// Loader loads a library folder into Contents.
type Loader struct {
	fsys     fs.FS
	dataDir  string
	log      *slog.Logger
	builders []Builder
	cur      atomic.Pointer[Content]
	mu       sync.Mutex // one load at a time; guards retiring
	// retire is how long an old Content stays open after a swap, so requests
	// that started on it can finish. Its database file is kept until then.
	retire   time.Duration
	retiring map[*Content]bool
	// saving counts library snapshots being written in the background;
	// Close waits for them so a clean shutdown leaves one for the next start.
	saving sync.WaitGroup
	// Loads counts completed loads, for metrics; LastError is the last
	// failure, if the most recent load failed.
	OnLoad func(d time.Duration, problems int, err error)
}

// NewLoader returns a loader for the library rooted at fsys, persisting its
// read models under dataDir.
func NewLoader(fsys fs.FS, dataDir string, log *slog.Logger, builders ...Builder) *Loader {
	return &Loader{fsys: fsys, dataDir: dataDir, log: log, builders: builders, retire: 30 * time.Second,
		retiring: map[*Content]bool{}}
}

// Current returns the published Content, or nil before the first load.
func (l *Loader) Current() *Content { return l.cur.Load() }

// Load builds a Content and publishes it. On failure the previous Content
// stays published and the error is returned.
func (l *Loader) Load(ctx context.Context) (*Content, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := time.Now()
	c, err := l.load(ctx)
	if l.OnLoad != nil {
		n := 0
		if c != nil {
			n = len(c.Problems)
		}
		l.OnLoad(time.Since(start), n, err)
	}
	if err != nil {
		return nil, err
	}
	if c == l.cur.Load() {
		return c, nil // unchanged content: nothing to swap or report
	}
	old := l.cur.Swap(c)
	if old != nil && old != c {
		l.retiring[old] = true
		time.AfterFunc(l.retire, func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.close(old)
			delete(l.retiring, old)
			l.prune()
		})
	}
	l.prune()
	l.log.Info("library loaded", "hash", c.Hash[:12], "incidents", c.Incidents, "playbooks", c.Playbooks,
		"problems", len(c.Problems), "warm", c.Warm, "took", time.Since(start).Round(time.Millisecond))
	for _, p := range c.Problems {
		l.log.Warn("library problem", "problem", p.String())
	}
	return c, nil
}

func (l *Loader) load(ctx context.Context) (*Content, error) {
	hash, err := library.Hash(l.fsys)
	if err != nil {
		return nil, err
	}
	if cur := l.cur.Load(); cur != nil && cur.Hash == hash {
		return cur, nil
	}
	if c, err := l.warm(ctx, hash); err == nil {
		return c, nil
	} else if !errors.Is(err, ErrRebuild) && !store.IsStale(err) {
		l.log.Warn("reusing persisted read models failed; rebuilding", "err", err)
	}
	return l.cold(ctx)
}

// warm reuses read models persisted for hash: only the small taxonomy is
// parsed.
func (l *Loader) warm(ctx context.Context, hash string) (*Content, error) {
	tax, err := parseTaxonomy(l.fsys)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, l.dataDir, hash)
	if err != nil {
		return nil, err
	}
	cat, _ := triage.Load(l.fsys) // its problems were recorded by the cold load
	c := &Content{Hash: hash, Taxonomy: tax, Store: st, Triage: cat, LoadedAt: time.Now(), Warm: true, extras: Extras{}}
	if c.Problems, err = st.Problems(ctx); err != nil {
		st.Close()
		return nil, err
	}
	if c.Incidents, c.Playbooks, err = st.Count(ctx); err != nil {
		st.Close()
		return nil, err
	}
	var parsed *library.Library
	lazy := func() (*library.Library, error) {
		if parsed == nil {
			lib, err := loadSnapshot(l.dataDir, hash, tax)
			if err == nil {
				parsed = lib
				return parsed, nil // decoded, not parsed: still warm
			}
			if !errors.Is(err, fs.ErrNotExist) {
				l.log.Warn("library snapshot unusable; parsing the library", "err", err)
			}
			lib, _, err = library.Load(l.fsys)
			if err != nil {
				return nil, err
			}
			if lib.Hash != hash {
				return nil, fmt.Errorf("%w: library changed during load", ErrRebuild)
			}
			parsed = lib
			c.Warm = false
			l.saveSnapshot(lib)
		}
		return parsed, nil
	}
	if err := l.runBuilders(ctx, lazy, c); err != nil {
		l.close(c)
		return nil, err
	}
	return c, nil
}

func (l *Loader) cold(ctx context.Context) (*Content, error) {
	lib, problems, err := library.Load(l.fsys)
	var cat *triage.Catalog
	if lib != nil {
		var tp []library.Problem
		cat, tp = loadTriage(l.fsys, lib)
		problems = append(problems, tp...)
	}
	library.SortProblems(problems)
	if err != nil {
		for _, p := range problems {
			l.log.Error("library problem", "problem", p.String())
		}
		return nil, fmt.Errorf("content: load library: %w", err)
	}
	st, err := store.Build(ctx, l.dataDir, lib, problems)
	if err != nil {
		return nil, err
	}
	c := &Content{Hash: lib.Hash, Taxonomy: lib.Taxonomy, Store: st, Triage: cat, Problems: problems, LoadedAt: time.Now(),
		Incidents: len(lib.Incidents), Playbooks: len(lib.Playbooks), extras: Extras{}}
	if err := l.runBuilders(ctx, func() (*library.Library, error) { return lib, nil }, c); err != nil {
		l.close(c)
		return nil, err
	}
	l.saveSnapshot(lib)
	return c, nil
}

// saveSnapshot persists lib for the next warm start, in the background: a
// load does not wait for it.
func (l *Loader) saveSnapshot(lib *library.Library) {
	l.saving.Add(1)
	go func() {
		defer l.saving.Done()
		if err := saveSnapshot(l.dataDir, lib); err != nil {
			l.log.Warn("could not save the library snapshot; the next start will parse", "err", err)
		}
	}()
}

func (l *Loader) runBuilders(ctx context.Context, lib func() (*library.Library, error), c *Content) error {
	for _, b := range l.builders {
		v, err := b.Build(ctx, lib, c)
		if err != nil {
			return fmt.Errorf("content: build %s: %w", b.Name, err)
		}
		c.extras[b.Name] = v
	}
	return nil
}

// prune removes the database files that neither the published Content nor
// a retiring one reads. The caller holds l.mu, so no build is in progress.
func (l *Loader) prune() {
	cur := l.cur.Load()
	if cur == nil {
		return // closed: leave the files for the next start
	}
	keep := []string{cur.Hash}
	for c := range l.retiring {
		keep = append(keep, c.Hash)
	}
	store.Prune(l.dataDir, keep...)
	pruneSnapshots(l.dataDir, keep)
}

func (l *Loader) close(c *Content) {
	for _, b := range l.builders {
		if v, ok := c.extras[b.Name]; ok && b.Close != nil {
			b.Close(v)
		}
	}
	c.Store.Close()
}

// Close closes the current Content.
func (l *Loader) Close() {
	l.saving.Wait()
	if c := l.cur.Swap(nil); c != nil {
		l.close(c)
	}
}

func parseTaxonomy(fsys fs.FS) (*library.Taxonomy, error) {
	src, err := fs.ReadFile(fsys, "taxonomy.yaml")
	if err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	tax, _, err := library.ParseTaxonomy("taxonomy.yaml", src)
	return tax, err
}
