package search

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	bsearch "github.com/blevesearch/bleve/v2/search"

	"casebook/internal/library"
)

// Index is an open search index over one version of the library. It is
// read-only and safe for concurrent searches.
type Index struct {
	bleve   bleve.Index
	lib     *library.Library
	matcher *Matcher
	english analysis.Analyzer
	bm25    *bsearch.BM25Stats // true field lengths, see lengthCounter
	docs    map[string]source  // by document id
	orgs    map[string]string  // org key -> organization as written
	info    Info
}

// source is the library object behind an index document.
type source struct {
	incident   *library.Incident
	playbook   *library.Playbook
	rank       int
	categories []string // of the incident's causes
}

func (s source) incidentCategory(id string) bool { return slices.Contains(s.categories, id) }

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
	builderBatch  = 1000
	staleBuildAge = time.Hour
)

// DirName is the directory, under the data folder, of the index of the
// library with this content hash.
func DirName(hash string) string {
	if len(hash) > 16 {
		hash = hash[:16]
	}
	return dirPrefix + hash
}

// Open returns the index of lib under dir (the data folder), reusing the
// index built for the same content hash when it is complete and intact, and
// building it otherwise. A build happens in a temporary directory beside
// the final one and is renamed into place when finished, so a crash never
// leaves a half-built index where a later start would use it. A damaged
// index is removed and rebuilt rather than reported: it is only a cache of
// the library.
func Open(dir string, lib *library.Library) (*Index, error) {
	start := time.Now()
	if lib == nil || lib.Taxonomy == nil || lib.Hash == "" {
		return nil, errors.New("search: open: library without taxonomy or content hash")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("search: open: %w", err)
	}
	ix := newIndex(lib)
	path := filepath.Join(dir, DirName(lib.Hash))
	ix.info.Path = path

	if _, err := os.Stat(path); err == nil {
		bi, man, err := openVerified(path, lib.Hash, len(ix.docs))
		if err == nil {
			ix.info.Reused = true
			return ix.opened(bi, man, start)
		}
		ix.info.Rejected = err
		if err := os.RemoveAll(path); err != nil {
			return nil, fmt.Errorf("search: remove damaged index: %w", err)
		}
	}

	if err := build(dir, path, ix); err != nil {
		return nil, err
	}
	bi, man, err := openVerified(path, lib.Hash, len(ix.docs))
	if err != nil {
		return nil, fmt.Errorf("search: open new index: %w", err)
	}
	return ix.opened(bi, man, start)
}

func newIndex(lib *library.Library) *Index {
	ix := &Index{lib: lib, matcher: NewMatcher(lib.Taxonomy), docs: map[string]source{}, orgs: map[string]string{}}
	for i, in := range lib.Incidents {
		var cats []string
		for _, c := range in.Causes {
			if t, ok := lib.Taxonomy.Term(library.FacetCause, c); ok && t.Category != "" && !slices.Contains(cats, t.Category) {
				cats = append(cats, t.Category)
			}
		}
		ix.docs[in.ID] = source{incident: in, rank: i, categories: cats}
		if k := orgKey(in.Organization); k != "" {
			if _, ok := ix.orgs[k]; !ok {
				ix.orgs[k] = in.Organization
			}
		}
	}
	for i, pb := range lib.Playbooks {
		ix.docs[pb.ID] = source{playbook: pb, rank: len(lib.Incidents) + i}
	}
	return ix
}

func (ix *Index) opened(bi bleve.Index, man *manifest, start time.Time) (*Index, error) {
	ix.bleve = bi
	ix.bm25 = &bsearch.BM25Stats{DocCount: float64(man.Docs), FieldCardinality: map[string]int{}}
	for field := range fieldAnalyzers() {
		ix.bm25.FieldCardinality[field] = max(man.Lengths[field], 1)
	}
	// A document filed under five components is not less about each of
	// them than one filed under one: an average length far above any real
	// one turns BM25's length normalisation off for the facet fields.
	for _, f := range facetFields {
		ix.bm25.FieldCardinality[string(f)] = man.Docs * 1_000_000
	}
	// Unscored filters over several terms are merged by bleve into one
	// searcher on the pseudo-field "*", which still asks for its stats.
	ix.bm25.FieldCardinality["*"] = 1
	ix.english = ix.bleve.Mapping().AnalyzerNamed(en.AnalyzerName)
	if ix.english == nil {
		ix.bleve.Close()
		return nil, fmt.Errorf("search: index mapping lacks the %q analyzer", en.AnalyzerName)
	}
	ix.info.Docs = len(ix.docs)
	ix.info.Took = time.Since(start)
	return ix, nil
}

// document rebuilds the indexed form of a hit for highlighting.
func (ix *Index) document(id string) *document {
	s, ok := ix.docs[id]
	switch {
	case !ok:
		return nil
	case s.incident != nil:
		return incidentDocument(ix.lib.Taxonomy, s.incident, s.rank)
	default:
		return playbookDocument(ix.lib.Taxonomy, s.playbook, s.rank)
	}
}

// Info reports how the index was opened.
func (ix *Index) Info() Info { return ix.info }

// Close releases the index files.
func (ix *Index) Close() error { return ix.bleve.Close() }

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
