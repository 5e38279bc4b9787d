package content

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"casebook/internal/gaps"
	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/store"
)

// build runs the load pipeline for the library whose content hash is hash,
// top to bottom. Each read model persisted for the same hash under the data
// folder is reused instead of rebuilt — the SQLite store, the parsed
// library, the search index — so an unchanged library starts warm. Any
// step's error discards what the earlier steps built.
//
// A reopened store's integrity is checked beside the other steps; if it
// fails, the file is removed and the load starts again, building it.
func (l *Loader) build(ctx context.Context, files *library.Files) (*Content, error) {
	c, err := l.buildOnce(ctx, files)
	if errors.Is(err, errDamagedStore) {
		l.log.Warn("reusing the persisted database failed; rebuilding", "err", err)
		store.Remove(l.dataDir, files.Hash)
		c, err = l.buildOnce(ctx, files)
	}
	return c, err
}

// errDamagedStore is a reopened store that failed its integrity check.
var errDamagedStore = errors.New("content: the persisted database is damaged")

// afterCheck is a load's error once the reopened store's check returned
// checkErr. A damaged file may have failed a step already; the check says
// why, and that a rebuild will do (errDamagedStore, on which build removes
// the file). A check cut short because the load was cancelled (shutdown)
// says nothing about the file, which must not be removed for it.
func afterCheck(ctx context.Context, checkErr, err error) error {
	switch {
	case checkErr == nil:
		return err
	case ctx.Err() != nil:
		if err == nil {
			return ctx.Err()
		}
		return err
	default:
		return fmt.Errorf("%w: %v", errDamagedStore, checkErr)
	}
}

func (l *Loader) buildOnce(ctx context.Context, files *library.Files) (_ *Content, err error) {
	hash := files.Hash
	c := &Content{Hash: hash, LoadedAt: time.Now(), Roots: l.stack.Roots()}
	var drawing *graphJob
	var saved func(keep bool) // the snapshot's, once started
	var checked chan error    // the reopened store's integrity check
	defer func() {
		if drawing != nil {
			drawing.wait() // a load does not leave work running behind it
		}
		if checked != nil {
			err = afterCheck(ctx, <-checked, err)
		}
		if saved != nil {
			saved(err == nil)
		}
		if err != nil {
			c.close()
		}
	}()
	// 1. The SQLite read model: reopened when one was built for hash, and
	//    its pages checked while the next steps run.
	c.Store = l.reopenStore(ctx, hash)
	stored := c.Store != nil
	if stored {
		checked = make(chan error, 1)
		go func(st *store.Store) { checked <- st.Check(ctx) }(c.Store)
	}
	// 2. The parsed library: decoded from the copy persisted for hash
	//    when the store was reused, else parsed from the Markdown. A warm
	//    start draws the whole-library graph from it while the triage
	//    catalogue, the checks and the index are opened.
	var tax *library.Taxonomy
	if stored {
		if tax, err = l.stack.Taxonomy(); err != nil {
			return nil, err
		}
	}
	lib, problems, parsed, err := l.parse(files, tax)
	if err != nil {
		return nil, err
	}
	if stored {
		drawing = drawAside(lib)
	}
	l.shareLibrary(lib) // restrict.go: the two views hold their common entries once
	c.Taxonomy, c.Incidents, c.Playbooks, c.Layers = lib.Taxonomy, len(lib.Incidents), len(lib.Playbooks), lib.Layers
	// 3. The triage catalogue and the gap checks, with every problem of
	//    their files.
	cat, triageProblems := loadTriage(l.stack.Layers(), lib)
	checks, checkProblems := loadChecks(l.stack.Layers(), lib)
	c.Triage, c.Checks = cat, checks
	problems = append(append(problems, triageProblems...), checkProblems...)
	l.stack.Attribute(problems)
	library.SortProblems(problems)
	// 4. The search index, reopened when one was written for hash, and
	// 5. the store, built from the library recording those problems or,
	//    when it was reopened, holding those its build recorded. Both only
	//    read the parsed library, so a cold load builds them at the same
	//    time. The index analyses documents on every core; the store's one
	//    writer is built once that analysis is done, with the whole-library
	//    graph, rather than beside it: the analysis keeps both cores busy
	//    on its own.
	//    A cold load's build steps are where its memory peaks: the parsed
	//    library, documents being analysed and indexed, the read model
	//    being written. The collector runs more often while they run
	//    (buildGC), and more often still once the index is analysed
	//    (analysedGC); then the memory the analysis freed is handed back,
	//    so the index's files and the store's pages do not add to the
	//    analysis's peak.
	// The parsed library is saved for the next start from when the index
	// is analysed: its section texts are written then and read from their
	// file after, so the store, where the cold load peaks, runs
	// without them in memory (about 13 MB at 10,000 incidents; the store
	// reads them back from the file). The rest is written once loaded.
	save := sync.OnceFunc(func() {
		if parsed {
			saved = l.saveSnapshot(lib)
		}
	})
	opt := l.Search
	opt.Triage = cat
	analysing := make(chan struct{})
	var analysedOnce sync.Once
	analysed := func() { analysedOnce.Do(func() { close(analysing) }) }
	if !stored {
		defer l.memory().Build()()
		opt.Analysed = func() {
			l.memory().Analysed()
			go l.memory().Release()
			save()
			analysed()
		}
	}
	var ixErr error
	indexed := make(chan struct{})
	go func() {
		defer close(indexed)
		defer analysed()
		c.Search, ixErr = l.index(lib, opt)
	}()
	if stored {
		c.Problems, err = c.Store.Problems(ctx)
	} else {
		c.Problems = problems
		<-analysing
		drawing = drawAside(lib)
		c.Store, err = store.Build(ctx, l.dataDir, lib, problems)
	}
	<-indexed
	if err == nil {
		err = ixErr
	}
	if err != nil {
		return nil, err
	}
	// 6. What nearly every page draws: the whole-library graph and the
	//    organisation names.
	c.Graph = drawing.wait()
	c.Orgs = orgs(lib)
	c.Warm = stored && !parsed
	save()
	return c, nil
}

// reopenStore opens the store persisted for hash; nil when there is none
// or it cannot be used, and then it is rebuilt.
func (l *Loader) reopenStore(ctx context.Context, hash string) *store.Store {
	st, err := store.OpenUnchecked(ctx, l.dataDir, hash)
	if err != nil {
		if !store.IsStale(err) && !errors.Is(err, fs.ErrNotExist) {
			l.log.Warn("reusing the persisted database failed; rebuilding", "err", err)
		}
		return nil
	}
	return st
}

// parse returns the library with hash: decoded from its persisted snapshot
// when tax, the stack's taxonomy, is given because the store was reused
// (decoding is a fraction of parsing at 10,000 incidents), else parsed from
// the Markdown. parsed says which. A library with nothing valid is an error
// naming every problem in the log.
func (l *Loader) parse(files *library.Files, tax *library.Taxonomy) (lib *library.Library, problems []library.Problem, parsed bool, err error) {
	hash := files.Hash
	if tax != nil {
		// The snapshot is nearly always there beside the store: let go of
		// the files' bytes before decoding it (a parse after a failed
		// decode reads them again).
		files.Release()
		lib, err := loadSnapshot(l.dataDir, hash, tax)
		if err == nil {
			return lib, nil, false, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			l.log.Warn("library snapshot unusable; parsing the library", "err", err)
		}
	}
	lib, problems, err = l.stack.LoadFiles(files)
	if err != nil {
		library.SortProblems(problems)
		for _, p := range problems {
			l.log.Error("library problem", "problem", p.String())
		}
		return nil, nil, false, &problemsError{fmt.Errorf("content: load library: %w", err), problems}
	}
	if lib.Hash != hash {
		return nil, nil, false, errors.New("content: the library changed during the load; the next reload will pick it up")
	}
	return lib, problems, true, nil
}

// index opens (or builds) the search index of lib, unless the loader
// leaves search out.
func (l *Loader) index(lib *library.Library, opt search.Options) (*search.Index, error) {
	if l.NoSearch {
		return nil, nil
	}
	ix, err := search.OpenWith(l.dataDir, lib, opt)
	if err != nil {
		return nil, fmt.Errorf("content: search index: %w", err)
	}
	info := ix.Info()
	l.log.Info("search index ready", "reused", info.Reused, "docs", info.Docs, "took", info.Took)
	if info.Rejected != nil {
		l.log.Warn("search index was damaged and has been rebuilt", "err", info.Rejected)
	}
	return ix, nil
}

// loadChecks compiles the gap checks of every layer and lists their
// problems: texts without their Korean twin, and citations of incidents and
// playbook sections lib does not have.
func loadChecks(layers []library.Layer, lib *library.Library) (*gaps.Set, []library.Problem) {
	set, problems := gaps.LoadLayers(layers)
	problems = append(problems, set.KoProblems()...)
	return set, append(problems, set.Dangling(lib)...)
}

// orgs maps every organisation's slug to its name as the incidents write
// it (the first spelling wins when two differ only in case or spacing).
func orgs(lib *library.Library) Orgs {
	out := Orgs{}
	for _, in := range lib.Incidents {
		if in.Organization == "" {
			continue
		}
		if slug := library.Slug(in.Organization); out[slug] == "" {
			out[slug] = in.Organization
		}
	}
	return out
}

// problemsError is a failed load with the problems that made it fail, so
// the failure shown to operators lists them.
type problemsError struct {
	err      error
	problems []library.Problem
}

func (e *problemsError) Error() string { return e.err.Error() }
func (e *problemsError) Unwrap() error { return e.err }
