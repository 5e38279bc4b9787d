package search

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search/query"

	"casebook/internal/library"
)

// Index is an open search index over one version of the library. It is
// read-only and safe for concurrent searches.
type Index struct {
	bleve     bleve.Index
	lib       *library.Library
	matcher   *Matcher
	english   analysis.Analyzer
	korean    analysis.Analyzer
	words     analysis.Analyzer             // the typo vocabulary's: lower-cased, unstemmed
	mem       *memIndex                     // the short fields (memfield.go)
	avgLen    map[string]float64            // average analysed length per field; 0 turns length normalisation off
	byRank    []source                      // incidents newest first, then playbooks
	rankByID  map[string]int                // incident and playbook ids
	facets    *facetTable                   // facet values by rank
	rankOf    []int32                       // bleve document number -> rank
	docOf     []uint64                      // rank -> bleve document number
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

// builderBatch is how many documents bleve's builder takes into one
// segment before writing it: they wait in memory analysed, and the segment
// is built in memory beside them, so a larger batch raises the cold load's
// peak memory and a smaller one adds segments to merge (more CPU). The
// segments are merged bleve's way, ten at a time, since merging all at
// once maps every input segment together. docs/performance.md has the
// measurements behind both choices.
const builderBatch = 125

// SchemaVersion names the layout of the index (mapping and manifest). A
// change to either must bump it, so that an index written by an older
// Casebook is rebuilt rather than misread.
const SchemaVersion = 10

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
	ix := newIndex(lib)
	ix.cache = newResultCache(opt.CacheBytes, opt.OnCache)
	ix.router = newRouter(opt.Triage, lib, ix.matcher)
	ix.turns = opt.Turns
	path := filepath.Join(dir, DirName(lib.Hash))
	ix.info.Path = path

	if _, err := os.Stat(path); err == nil {
		bi, mem, man, err := openVerified(path, lib.Hash, len(ix.byRank))
		if err == nil {
			ix.info.Reused = true
			return ix.opened(bi, mem, man, start)
		}
		ix.info.Rejected = err
		if err := os.RemoveAll(path); err != nil {
			return nil, fmt.Errorf("search: remove damaged index: %w", err)
		}
	}

	if err := build(dir, path, ix, opt.Merging); err != nil {
		return nil, err
	}
	bi, mem, man, err := openVerified(path, lib.Hash, len(ix.byRank))
	if err != nil {
		return nil, fmt.Errorf("search: open new index: %w", err)
	}
	return ix.opened(bi, mem, man, start)
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

func (ix *Index) opened(bi bleve.Index, mem *memIndex, man *manifest, start time.Time) (*Index, error) {
	ix.bleve, ix.mem = bi, mem
	// Every field's lengths are in the memory fields, bleve's too.
	ix.avgLen = map[string]float64{}
	for f := range numMem {
		ix.avgLen[memFieldNames[f]] = mem.avgLen(f, man.Docs)
	}
	var err error
	ix.english = ix.bleve.Mapping().AnalyzerNamed(analyzerEn)
	ix.korean = ix.bleve.Mapping().AnalyzerNamed(analyzerKo)
	ix.words = ix.bleve.Mapping().AnalyzerNamed(analyzerWords)
	if ix.english == nil || ix.korean == nil || ix.words == nil {
		err = fmt.Errorf("search: index mapping lacks the %q or %q analyzer", analyzerEn, analyzerKo)
	}
	if err == nil {
		err = ix.mapDocumentNumbers()
	}
	if err != nil {
		ix.bleve.Close()
		ix.mem.close()
		return nil, err
	}
	ix.info.Docs = len(ix.byRank)
	ix.info.Took = time.Since(start)
	return ix, nil
}

// mapDocumentNumbers records the rank of each of bleve's internal document
// numbers, so that a match can be placed without looking its id up.
func (ix *Index) mapDocumentNumbers() error {
	rankByID := make(map[string]int32, len(ix.byRank))
	for rank, s := range ix.byRank {
		rankByID[s.id()] = int32(rank)
	}
	ix.docOf = make([]uint64, len(ix.byRank))
	req := bleve.NewSearchRequestOptions(query.NewMatchAllQuery(), len(ix.byRank), 0, false)
	req.Score = "none"
	sr, err := ix.bleve.Search(req)
	if err != nil {
		return fmt.Errorf("search: map documents: %w", err)
	}
	for _, h := range sr.Hits {
		rank, ok := rankByID[h.ID]
		if !ok {
			return fmt.Errorf("search: index holds %q, which the library does not", h.ID)
		}
		num := h.IndexInternalID.Value()
		for uint64(len(ix.rankOf)) <= num {
			ix.rankOf = append(ix.rankOf, -1)
		}
		ix.rankOf[num] = rank
		ix.docOf[rank] = num
	}
	return nil
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
	err := ix.bleve.Close()
	if ferr := ix.mem.close(); err == nil {
		err = ferr
	}
	return err
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
