package search

import (
	"container/heap"
	"context"
	"fmt"
	"sort"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// scored is one matching document.
type scored struct {
	rank  int
	score float64
}

// collection is what collect gathers from one pass over the matches.
type collection struct {
	top    []scored // best first: score, then library order
	total  int
	facets *facetCounter
}

// collect runs q over the index and keeps the best k documents that pass
// keep, counting facets over all of them. It walks bleve's searcher itself
// rather than calling Index.Search, so that filters and facet counts come
// from the in-memory facet table (see facetTable).
func (ix *Index) collect(ctx context.Context, q query.Query, filter *docFilter, k int) (*collection, error) {
	adv, err := ix.bleve.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()

	ctx = context.WithValue(ctx, bsearch.GetScoringModelCallbackKey,
		bsearch.GetScoringModelCallbackFn(func() string { return index.BM25Scoring }))
	ctx = context.WithValue(ctx, bsearch.BM25StatsKey, ix.bm25)
	s, err := q.Searcher(ctx, r, ix.bleve.Mapping(), bsearch.SearcherOptions{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	sctx := &bsearch.SearchContext{DocumentMatchPool: bsearch.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0), IndexReader: r}

	c := &collection{facets: ix.facets.counter()}
	h := &worstFirst{}
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		dm, err := s.Next(sctx)
		if err != nil {
			return nil, err
		}
		if dm == nil {
			break
		}
		num := dm.IndexInternalID.Value()
		score := dm.Score
		sctx.DocumentMatchPool.Put(dm)
		if num >= uint64(len(ix.rankOf)) || ix.rankOf[num] < 0 {
			return nil, fmt.Errorf("document number %d is not in the index map", num)
		}
		rank := int(ix.rankOf[num])
		if !filter.keep(rank) {
			continue
		}
		c.total++
		c.facets.add(rank)
		if d := (scored{rank, score}); h.Len() < k {
			heap.Push(h, d)
		} else if k > 0 && better(d, (*h)[0]) {
			(*h)[0] = d
			heap.Fix(h, 0)
		}
	}
	c.top = []scored(*h)
	sort.Slice(c.top, func(i, j int) bool { return better(c.top[i], c.top[j]) })
	return c, nil
}

// list is collect for the empty query: every document that passes the
// filter, in library order, without touching the index.
func (ix *Index) list(filter *docFilter, from, size int) *collection {
	c := &collection{facets: ix.facets.counter()}
	for rank := range ix.byRank {
		if !filter.keep(rank) {
			continue
		}
		if c.total >= from && c.total < from+size {
			c.top = append(c.top, scored{rank: rank})
		}
		c.total++
		c.facets.add(rank)
	}
	return c
}

func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.rank < b.rank
}

// worstFirst is a heap whose root is the weakest of the best documents so
// far, the one a better match replaces.
type worstFirst []scored

func (h worstFirst) Len() int           { return len(h) }
func (h worstFirst) Less(i, j int) bool { return better(h[j], h[i]) }
func (h worstFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worstFirst) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *worstFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
