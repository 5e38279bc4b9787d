package search

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
	kinds  []FacetCount // the tabs: results by kind, without the kind filter
	exact  string       // the id the query named, when it is among the results
	best   bool         // the playbook of the route the query names is among them
}

// list is collect for the empty query: every document that passes the
// filter, in library order, without touching the index.
func (ix *Index) list(filter *docFilter, from, size int) *collection {
	c := &collection{facets: ix.facets.counter()}
	kinds := ix.facets.counter()
	for rank := range ix.byRank {
		if !filter.keepBase(rank) {
			continue
		}
		kinds.addKind(rank)
		if !filter.keepKind(rank) {
			continue
		}
		if c.total >= from && c.total < from+size {
			c.top = append(c.top, scored{rank: rank})
		}
		c.total++
		c.facets.add(rank)
	}
	c.kinds = kinds.result()[facetKind]
	kinds.release()
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
