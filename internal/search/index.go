package search

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"casebook/internal/library"
	"casebook/internal/triage"
)

// Index is an open search index over one version of the library. It is
// read-only and safe for concurrent searches.
type Index struct {
	*analyzers
	lib       *library.Library
	matcher   *Matcher
	mem       *memIndex                     // every field's postings and the forward file (postings.go)
	avgLen    map[string]float64            // average analysed length per field; 0 turns length normalisation off
	byRank    []source                      // incidents newest first, then playbooks
	rankByID  map[string]int                // incident and playbook ids
	facets    *facetTable                   // facet values by rank
	pool      sync.Pool                     // *scratch
	cache     *resultCache                  // nil when off
	shownDocs recentCache[int, *document]   // documents of recent hits (doccache.go)
	placed    recentCache[int, []byte]      // forward blocks of recent hits (doccache.go)
	typos     recentCache[string, []string] // typo neighbours of recent query words
	router    *router                       // nil without a triage catalogue
	turns     chan struct{}                 // Options.Turns
	glossary  *koGlossary                   // the Korean glossary and the taxonomy's names
	info      Info
}

// Options tune an open index.
type Options struct {
	// CacheBytes bounds the result cache; 0 turns it off, negative means
	// DefaultCacheBytes.
	CacheBytes int64
	// OnCache is told of every cache lookup (hit or miss), for metrics.
	OnCache func(hit bool)
	// Analysed, when set, is called when a fresh build has analysed every
	// document and packed the memory fields: the analysis's memory is
	// garbage from then on, so the caller may hand it back (see content's
	// load pipeline).
	Analysed func()
	// Turns admits searches: its capacity is how many run at once, shared
	// by every index the process opens with it (the caller sizes it to
	// the cores). Nil runs every search at once.
	Turns chan struct{}
	// Triage, when set, lets a query that names a symptom or a route put
	// the route's playbook section first (Result.Best).
	Triage *triage.Catalog
}

// source is the library object behind an index document.
type source struct {
	incident *library.Incident
	playbook *library.Playbook
}

func (s source) id() string {
	if s.incident != nil {
		return s.incident.ID
	}
	return s.playbook.ID
}

// Info describes how Open obtained the index, for the start-up log.
type Info struct {
	Path   string
	Docs   int
	Reused bool          // an existing index for this content was opened; nothing was indexed
	Took   time.Duration // time spent in Open
	// Rejected says why an index found at Path was discarded and rebuilt
	// (unfinished build, truncated or damaged files); nil if none was.
	Rejected error
}

const (
	dirPrefix     = "index-"
	buildPrefix   = ".building-"
	staleBuildAge = time.Hour
)

// SchemaVersion names the layout of the index (mapping and manifest). A
// change to either must bump it, so that an index written by an older
// Casebook is rebuilt rather than misread.
const SchemaVersion = 12

// DirName is the directory, under the data folder, of the index of the
// library with this content hash.
func DirName(hash string) string {
	if len(hash) > 16 {
		hash = hash[:16]
	}
	return fmt.Sprintf("%sv%d-%s", dirPrefix, SchemaVersion, hash)
}

// Open returns the index of lib under dir (the data folder), reusing the
// index built for the same content hash when it is complete and intact, and
// building it otherwise. A build happens in a temporary directory beside
// the final one and is renamed into place when finished, so a crash never
// leaves a half-built index where a later start would use it. A damaged
// index is removed and rebuilt rather than reported: it is only a cache of
// the library.
func Open(dir string, lib *library.Library) (*Index, error) {
	return OpenWith(dir, lib, Options{CacheBytes: -1})
}

// OpenWith is Open with options.
func OpenWith(dir string, lib *library.Library, opt Options) (*Index, error) {
	start := time.Now()
	if lib == nil || lib.Taxonomy == nil || lib.Hash == "" {
		return nil, errors.New("search: open: library without taxonomy or content hash")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("search: open: %w", err)
	}
	an, err := newAnalyzers()
	if err != nil {
		return nil, err
	}
	ix := newIndex(lib)
	ix.analyzers = an
	ix.cache = newResultCache(opt.CacheBytes, opt.OnCache)
	ix.router = newRouter(opt.Triage, lib, ix.matcher)
	ix.turns = opt.Turns
	path := filepath.Join(dir, DirName(lib.Hash))
	ix.info.Path = path

	if _, err := os.Stat(path); err == nil {
		mem, man, err := openVerified(path, lib.Hash, len(ix.byRank))
		if err == nil {
			ix.info.Reused = true
			return ix.opened(mem, man, start), nil
		}
		ix.info.Rejected = err
		if err := os.RemoveAll(path); err != nil {
			return nil, fmt.Errorf("search: remove damaged index: %w", err)
		}
	}

	if err := build(dir, path, ix, opt.Analysed); err != nil {
		return nil, err
	}
	mem, man, err := openVerified(path, lib.Hash, len(ix.byRank))
	if err != nil {
		return nil, fmt.Errorf("search: open new index: %w", err)
	}
	return ix.opened(mem, man, start), nil
}

func newIndex(lib *library.Library) *Index {
	ix := &Index{lib: lib, matcher: NewMatcher(lib.Taxonomy), facets: newFacetTable(lib), rankByID: map[string]int{}, glossary: glossary.withNames(lib.Taxonomy.Names()),
		shownDocs: recentCache[int, *document]{max: shownDocs}, placed: recentCache[int, []byte]{max: placedDocs}, typos: recentCache[string, []string]{max: maxTypoWords}}
	for _, in := range lib.Incidents {
		ix.rankByID[in.ID] = len(ix.byRank)
		ix.byRank = append(ix.byRank, source{incident: in})
	}
	for _, pb := range lib.Playbooks {
		ix.rankByID[pb.ID] = len(ix.byRank)
		ix.byRank = append(ix.byRank, source{playbook: pb})
	}
	return ix
}

func (ix *Index) opened(mem *memIndex, man *manifest, start time.Time) *Index {
	ix.mem = mem
	ix.avgLen = map[string]float64{}
	for f := range numMem {
		ix.avgLen[memFieldNames[f]] = mem.avgLen(f, man.Docs)
	}
	ix.info.Docs = len(ix.byRank)
	ix.info.Took = time.Since(start)
	return ix
}

// document rebuilds the indexed form of a document for highlighting.
func (ix *Index) document(rank int) *document {
	s := ix.byRank[rank]
	if s.incident != nil {
		return incidentDocument(s.incident)
	}
	return playbookDocument(s.playbook)
}

// Incident returns the library's incident with id, as the index holds it:
// its section texts are in its Body (library.Incident.FullSections); pages
// read them from the read model.
func (ix *Index) Incident(id string) (*library.Incident, bool) {
	rank, ok := ix.rankByID[id]
	if !ok || ix.byRank[rank].incident == nil {
		return nil, false
	}
	return ix.byRank[rank].incident, true
}

// Info reports how the index was opened.
func (ix *Index) Info() Info { return ix.info }

// Close releases the index files and the result cache's memory.
func (ix *Index) Close() error {
	if ix.cache != nil {
		ix.cache.close()
	}
	return ix.mem.close()
}

// RemoveStale deletes the indexes of other content versions under dir, and
// builds that were abandoned (older than an hour, so a build running in
// another process right now is left alone). The index of keepHash stays.
func RemoveStale(dir, keepHash string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("search: remove stale indexes: %w", err)
	}
	keep := DirName(keepHash)
	var errs []error
	for _, e := range entries {
		name := e.Name()
		stale := strings.HasPrefix(name, dirPrefix) && name != keep
		if strings.HasPrefix(name, buildPrefix) {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleBuildAge {
				stale = true
			}
		}
		if stale && e.IsDir() {
			errs = append(errs, os.RemoveAll(filepath.Join(dir, name)))
		}
	}
	return errors.Join(errs...)
}

// RemoveStale deletes every other index under the directory of this one.
func (ix *Index) RemoveStale() error {
	return RemoveStale(filepath.Dir(ix.info.Path), ix.lib.Hash)
}
