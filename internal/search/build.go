package search

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// build indexes the library into a temporary directory under dir and renames
// the finished index to path. bleve's offline builder writes documents in
// batches of segments and merges them into one at the end, which makes both
// the build and later queries faster than an online index fed by batches.
func build(dir, path string, ix *Index) error {
	tmp, err := os.MkdirTemp(dir, buildPrefix)
	if err != nil {
		return fmt.Errorf("search: build: %w", err)
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "index")

	m, err := newMapping()
	if err != nil {
		return fmt.Errorf("search: mapping: %w", err)
	}
	b, err := bleve.NewBuilder(work, m, map[string]any{"batchSize": builderBatch})
	if err != nil {
		return fmt.Errorf("search: build: %w", err)
	}
	tax := ix.lib.Taxonomy
	lengths := newLengthCounter(m, len(ix.byRank))
	add := func(d *document) error {
		d.addIdentifiers()
		lengths.add(d)
		return b.Index(d.id, d.fields())
	}
	for _, in := range ix.lib.Incidents {
		if err := add(incidentDocument(tax, in)); err != nil {
			b.Close()
			return fmt.Errorf("search: index %s: %w", in.ID, err)
		}
	}
	for _, pb := range ix.lib.Playbooks {
		if err := add(playbookDocument(tax, pb)); err != nil {
			b.Close()
			return fmt.Errorf("search: index playbook %s: %w", pb.ID, err)
		}
	}
	if err := b.Close(); err != nil {
		return fmt.Errorf("search: build: %w", err)
	}
	if err := writeManifest(work, manifest{Hash: ix.lib.Hash, Docs: len(ix.byRank), Lengths: lengths.totals()}); err != nil {
		return err
	}
	if err := os.Rename(work, path); err != nil {
		// Another process may have finished the same build first; its
		// index is as good as ours.
		if _, verr := checkManifest(path, ix.lib.Hash); verr == nil {
			return nil
		}
		return fmt.Errorf("search: move index into place: %w", err)
	}
	return nil
}

// openVerified opens the index at path read-only after checking that it is
// the complete, undamaged index of this content. bleve can panic on a
// damaged segment, so a panic here is turned into an error and the caller
// rebuilds.
func openVerified(path, hash string, docs int) (bi bleve.Index, man *manifest, err error) {
	man, err = checkManifest(path, hash)
	if err != nil {
		return nil, nil, err
	}
	if man.Docs != docs {
		return nil, nil, fmt.Errorf("index holds %d documents, the library %d", man.Docs, docs)
	}
	defer func() {
		if r := recover(); r != nil {
			if bi != nil {
				bi.Close()
			}
			bi, man, err = nil, nil, fmt.Errorf("index unreadable: %v", r)
		}
	}()
	bi, err = bleve.OpenUsing(path, map[string]any{"read_only": true})
	if err != nil {
		return nil, nil, fmt.Errorf("open: %w", err)
	}
	n, err := bi.DocCount()
	if err == nil && int(n) != docs {
		err = fmt.Errorf("index holds %d documents, want %d", n, docs)
	}
	if err == nil {
		_, err = bi.Search(bleve.NewSearchRequestOptions(query.NewMatchAllQuery(), 1, 0, false))
	}
	if err != nil {
		bi.Close()
		return nil, nil, fmt.Errorf("verify: %w", err)
	}
	return bi, man, nil
}

// lengthCounter totals the analysed length of every field over the library.
// bleve's BM25 estimates a field's average length from the size of its
// vocabulary, which for prose is several times too short and punishes every
// long document; the true totals, passed with each search, fix the
// estimate. Only an average is needed, so a large library is sampled: every
// step-th document is analysed a second time, at most lengthSample of them.
type lengthCounter struct {
	analyzers     map[string]analysis.Analyzer
	sum           map[string]int
	step, seen, n int
	docs          int
}

const lengthSample = 1000

func newLengthCounter(m *mapping.IndexMappingImpl, docs int) *lengthCounter {
	c := &lengthCounter{analyzers: map[string]analysis.Analyzer{}, sum: map[string]int{}, docs: docs}
	c.step = max(1, (docs+lengthSample-1)/lengthSample)
	for field, name := range fieldAnalyzers() {
		c.analyzers[field] = m.AnalyzerNamed(name)
		c.sum[field] = 0
	}
	return c
}

func (c *lengthCounter) add(d *document) {
	c.seen++
	if (c.seen-1)%c.step != 0 {
		return
	}
	c.n++
	for field, segs := range d.text {
		a := c.analyzers[field]
		if a == nil {
			continue // not indexed on its own
		}
		for _, s := range segs {
			c.sum[field] += len(a.Analyze([]byte(s.text)))
		}
	}
	for field, vals := range d.keywords {
		c.sum[field] += len(vals)
	}
}

// totals extrapolates the sampled lengths to the whole library.
func (c *lengthCounter) totals() map[string]int {
	out := make(map[string]int, len(c.sum))
	for field, n := range c.sum {
		out[field] = n
		if c.n > 0 && c.n < c.docs {
			out[field] = int(float64(n) * float64(c.docs) / float64(c.n))
		}
	}
	return out
}
