// Package content runs the load pipeline — parse the library, build its
// SQLite read model and search index, load the triage catalogue and the gap
// checks, draw the whole-library graph — and holds the current result. A
// reload builds a complete new Content aside and swaps it in with one
// atomic store, so a request in flight keeps reading the Content it started
// with.
package content

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"casebook/internal/gaps"
	"casebook/internal/graph"
	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/store"
	"casebook/internal/triage"
)

// Content is one loaded library and every read model derived from it. It
// is immutable once published: a request reads all of it from one version
// of the library.
type Content struct {
	closeOnce sync.Once
	Hash      string
	Taxonomy  *library.Taxonomy
	Store     *store.Store
	// Search is the full-text index; nil only when the Loader was told to
	// leave it out (NoSearch).
	Search *search.Index
	Triage *triage.Catalog
	// Checks are the compiled gap checks of library/checks.
	Checks *gaps.Set
	// Graph links every cause, component, symptom and factor to its cases,
	// unfiltered and without focus: the library page, the search page and
	// /api/graph draw it on most requests, and at 10,000 incidents building
	// it costs about half a second of CPU.
	Graph graph.Graph
	// Orgs names the organisations by their slug, the one key URLs, filters
	// and the search index use.
	Orgs Orgs
	// Layers are the layers the library is stacked from, public first:
	// the Source facet's values and the layers a write-up can go to.
	Layers   []library.LayerInfo
	Problems []library.Problem
	// Roots are the layers' folders as problem paths start with them
	// (library.Stack.Roots), to show a problem's path inside its layer.
	Roots     map[string]string
	LoadedAt  time.Time
	Incidents int
	Playbooks int
	Warm      bool // the store was reused and nothing was parsed
	// unrestricted is this library without its restricted layers, what a
	// reader not allowed to see them reads (For); nil when none is
	// restricted.
	unrestricted *Content
}

// Orgs maps organisation slugs (library.Slug of the name) to the names the
// incidents write.
type Orgs map[string]string

// Name returns the organisation's name, or the slug itself when no
// incident names it.
func (o Orgs) Name(slug string) string {
	if n, ok := o[slug]; ok {
		return n
	}
	return slug
}

// LayerNames lists the names of the library's layers, public first: the
// values of the layer filter.
func (c *Content) LayerNames() []string {
	out := make([]string, len(c.Layers))
	for i, l := range c.Layers {
		out[i] = l.Name
	}
	if len(out) == 0 {
		out = append(out, library.PublicLayer)
	}
	return out
}

// Layer returns the info of a layer by name.
func (c *Content) Layer(name string) (library.LayerInfo, bool) {
	for _, l := range c.Layers {
		if l.Name == name {
			return l, true
		}
	}
	if name == library.PublicLayer || name == "" {
		return library.PublicInfo, true
	}
	return library.LayerInfo{}, false
}

// Loader loads a library (a stack of layers) into Contents.
type Loader struct {
	stack   *library.Stack
	dataDir string
	log     *slog.Logger
	cur     atomic.Pointer[Content]
	mu      sync.Mutex // one load at a time; guards retiring
	// retire is how long an old Content stays open after a swap, so requests
	// that started on it can finish. Its database file is kept until then.
	retire   time.Duration
	retiring map[*Content]bool
	// failure is the most recent load's failure while it is not followed
	// by a success; nil otherwise.
	failure atomic.Pointer[LoadFailure]
	// saving counts library snapshots being written in the background;
	// Close waits for them so a clean shutdown leaves one for the next start.
	saving sync.WaitGroup

	// NoSearch leaves the search index out, for commands that only read
	// the store (export); Search configures it (its result cache). Set
	// them before the first Load.
	NoSearch bool
	Search   search.Options
	// Memory is the process's memory policy during loads (cmd/server's:
	// the collector's target, returning memory to the system); nil leaves
	// the runtime alone.
	Memory MemoryPolicy
	// view loads the library without the restricted layers (Restrict);
	// nil when no layer is restricted.
	view       *Loader
	restricted []string
	// share is the whole library the view's loader points its entries at
	// (set on the view's loader only, during a load).
	share *library.Library

	// OnLoad is told about every load, for metrics: how long it took, how
	// many problems the library has, and the error if it failed.
	OnLoad func(d time.Duration, problems int, err error)
}

// NewLoader returns a loader for the library rooted at fsys, persisting its
// read models under dataDir.
func NewLoader(fsys fs.FS, dataDir string, log *slog.Logger) *Loader {
	return NewStackLoader(library.NewStack(library.Layer{FS: fsys}), dataDir, log)
}

// NewStackLoader returns a loader for a library stacked from layers (the
// public library and teams' layers). A reload parses again only the layers
// that changed.
func NewStackLoader(stack *library.Stack, dataDir string, log *slog.Logger) *Loader {
	if dataDir != "" {
		// A warm start learns that the files are unchanged from their
		// stats, without reading them.
		stack.CacheHashesIn(dataDir)
	}
	return &Loader{stack: stack, dataDir: dataDir, log: log, retire: 30 * time.Second, retiring: map[*Content]bool{}}
}

// Layers returns the layers the loader stacks, bottom first.
func (l *Loader) Layers() []library.Layer { return l.stack.Layers() }

// Current returns the published Content, or nil before the first load.
func (l *Loader) Current() *Content { return l.cur.Load() }

// LoadFailure says that the library on disk could not be loaded: the error
// of the latest attempt, when the failures began, and that the Content
// loaded before is still served.
type LoadFailure struct {
	Err      string
	Problems []library.Problem // of the library on disk, when it was read
	At       time.Time         // the latest failed attempt
	Since    time.Time         // the first failure of this run of failures
}

// Failure returns the current run of failed loads, nil when the latest
// load succeeded. Operators see it in /readyz, /api/problems, a metric and
// the page footer.
func (l *Loader) Failure() *LoadFailure { return l.failure.Load() }

// MemoryPolicy is how the process spends memory while a library loads.
// The loader only says when things happen: a cold build starts (Build,
// whose result is called when it ends), the search index has analysed
// every document (Analysed), and memory the load freed can go back to the
// system (Release).
type MemoryPolicy interface {
	Build() (done func())
	Analysed()
	Release()
}

type noPolicy struct{}

func (noPolicy) Build() func() { return func() {} }
func (noPolicy) Analysed()     {}
func (noPolicy) Release()      {}

func (l *Loader) memory() MemoryPolicy {
	if l.Memory == nil {
		return noPolicy{}
	}
	return l.Memory
}

// Load builds a Content and publishes it. On failure the previous Content
// stays published and the error is returned.
func (l *Loader) Load(ctx context.Context) (*Content, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := time.Now()
	c, err := l.load(ctx)
	if l.OnLoad != nil {
		// /metrics answers without an identity, so it counts what a
		// reader without access to the restricted layers sees.
		n := 0
		if c != nil {
			n = len(c.For(false).Problems)
		}
		l.OnLoad(time.Since(start), n, err)
	}
	if err != nil {
		f := &LoadFailure{Err: err.Error(), At: time.Now(), Since: time.Now()}
		var pe *problemsError
		if errors.As(err, &pe) {
			f.Problems = pe.problems
		}
		if prev := l.failure.Load(); prev != nil {
			f.Since = prev.Since
		}
		l.failure.Store(f)
		return nil, err
	}
	if prev := l.failure.Swap(nil); prev != nil {
		l.log.Info("library reload recovered", "failing_for", time.Since(prev.Since).Round(time.Second).String(), "hash", c.Hash[:12])
	}
	if c == l.cur.Load() {
		return c, nil // unchanged content: nothing to swap or report
	}
	old := l.cur.Swap(c)
	l.publishView(c)
	if old != nil && old != c {
		l.retiring[old] = true
		time.AfterFunc(l.retire, func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			old.close()
			l.retireView(old)
			delete(l.retiring, old)
			l.prune()
		})
	}
	l.prune()
	if !c.Warm {
		// A cold build holds far more at its peak than it keeps (parsed
		// Markdown, analysed documents, the store being written), and the Go
		// runtime returns freed memory to the system only gradually, so
		// the process would stay near its peak for minutes; give it back
		// now, once, off the loader's lock.
		go l.memory().Release()
	}
	l.log.Info("library loaded", "hash", c.Hash[:12], "incidents", c.Incidents, "playbooks", c.Playbooks,
		"problems", len(c.Problems), "warm", c.Warm, "took", time.Since(start).Round(time.Millisecond))
	for _, p := range c.Problems {
		l.log.Warn("library problem", "problem", p.String())
	}
	return c, nil
}

func (l *Loader) load(ctx context.Context) (*Content, error) {
	// The files' bytes are kept for the parse when one is likely: on a
	// reload (a file changed), or on a first start with no read model to
	// reuse. A warm start only needs their hash; holding them would add
	// the whole library to its peak.
	files, err := l.stack.Read(l.cur.Load() != nil || !store.Built(l.dataDir))
	if err != nil {
		return nil, err
	}
	if cur := l.cur.Load(); cur != nil && cur.Hash == files.Hash {
		return cur, nil
	}
	c, err := l.build(ctx, files)
	if err == nil {
		if err = l.withView(ctx, c); err != nil {
			c.close()
			return nil, err
		}
	}
	return c, err
}

// prune removes the read models that neither the published Content nor a
// retiring one reads. The caller holds l.mu, so no build is in progress.
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
	if cur.Search != nil {
		if err := cur.Search.RemoveStale(); err != nil {
			l.log.Warn("could not remove old search indexes", "err", err)
		}
	}
	l.pruneView()
}

// close releases the read models' files; a Content being built may have
// only some of them.
func (c *Content) close() {
	c.closeOnce.Do(c.closeFiles)
}

// closeFiles is close's work, done once: a view shared by two retiring
// contents can be reached from both.
func (c *Content) closeFiles() {
	if c.Search != nil {
		_ = c.Search.Close()
	}
	if c.Store != nil {
		c.Store.Close()
	}
}

// Close closes the current Content.
func (l *Loader) Close() {
	l.saving.Wait()
	if l.view != nil {
		l.view.saving.Wait()
	}
	if c := l.cur.Swap(nil); c != nil {
		c.close()
		if c.unrestricted != nil {
			c.unrestricted.close()
		}
	}
}
