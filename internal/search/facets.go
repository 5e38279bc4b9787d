package search

import (
	"container/heap"
	mbits "math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"casebook/internal/library"
)

// Facet names of the fields that are not taxonomy facets.
const (
	facetOrg  = "org"
	facetYear = "year"
	facetKind = "kind"
	// facetLayer is where a document comes from: the public library or a
	// team's layer (the Source facet).
	facetLayer = "layer"
	maxOrgs    = 50 // organizations listed in the org facet, most frequent first
)

// facetValue is one value of one facet: symptom "pod-pending", org "openai",
// year "2024", kind "playbook".
type facetValue struct {
	facet, term, label string
}

// facetTable holds the facet values of every document in memory, by rank.
// Filters and facet counts read it: a few integers per document.
type facetTable struct {
	values []facetValue
	index  map[string]int32 // facet + "\x00" + term -> position in values
	byDoc  [][]int32        // value positions of each document, by rank
	docs   [][]int32        // ranks of the documents of each value
	kind   []int32          // the kind value of each document, by rank
	// order is each value's place among all values sorted by term, so
	// that facet counts tie-break by term without comparing strings.
	order []int32
	// free holds the counters of finished searches (counter, release).
	free sync.Pool
	// bits holds, for each value carried by at least bitsetMin documents,
	// the set of its documents as a bitset by rank (nil for the others);
	// setCost is what counting a result set through them costs, in words
	// read, and perDoc the mean number of values per document
	// (facetCounter.flush).
	bits    [][]uint64
	setCost int
	perDoc  float64
	// facetNames are the facets, and facetOf each value's, by position
	// in facetNames.
	facetNames []string
	facetOf    []int16
}

// countCost is what adding one value of one document costs, in words of
// a bitset read (flush).
const countCost = 6

// bitsetMin is the fewest documents a value has for its documents to be
// kept as a bitset: below it, testing each of its documents against the
// result set reads fewer words than the bitset's.
func (t *facetTable) bitsetMin() int { return (len(t.byDoc) + 63) / 64 }

// bitsets fills bits, setCost and perDoc; the table is complete.
func (t *facetTable) bitsets() {
	words, n := t.bitsetMin(), 0
	t.bits = make([][]uint64, len(t.values))
	t.setCost = 0
	for v, docs := range t.docs {
		n += len(docs)
		if len(docs) < words {
			t.setCost += len(docs)
			continue
		}
		b := make([]uint64, words)
		for _, r := range docs {
			b[r/64] |= 1 << (r % 64)
		}
		t.bits[v] = b
		t.setCost += words
	}
	if len(t.byDoc) > 0 {
		t.perDoc = float64(n) / float64(len(t.byDoc))
	}
}

// groupByFacet fills facetNames and facetOf; the table is complete.
func (t *facetTable) groupByFacet() {
	t.facetNames, t.facetOf = nil, make([]int16, len(t.values))
	for v, fv := range t.values {
		g := slices.Index(t.facetNames, fv.facet)
		if g < 0 {
			g = len(t.facetNames)
			t.facetNames = append(t.facetNames, fv.facet)
		}
		t.facetOf[v] = int16(g)
	}
}

// pack moves every document's values, and every value's documents, into
// one block each, in rank order: built by appends they lay scattered over
// the heap, and counting the facets of a result set walks them rank after
// rank. The blocks also replace a small allocation per document.
func (t *facetTable) pack() {
	packInto(t.byDoc)
	packInto(t.docs)
}

func packInto(lists [][]int32) {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	block := make([]int32, 0, n)
	for i, l := range lists {
		start := len(block)
		block = append(block, l...)
		lists[i] = block[start:len(block):len(block)]
	}
}

// sortTerms fills order; the table is complete.
func (t *facetTable) sortTerms() {
	byTerm := make([]int32, len(t.values))
	for i := range byTerm {
		byTerm[i] = int32(i)
	}
	slices.SortFunc(byTerm, func(a, b int32) int { return strings.Compare(t.values[a].term, t.values[b].term) })
	t.order = make([]int32, len(t.values))
	for place, v := range byTerm {
		t.order[v] = int32(place)
	}
}

func (t *facetTable) add(rank int, facet, term, label string) {
	key := facet + "\x00" + term
	v, ok := t.index[key]
	if !ok {
		v = int32(len(t.values))
		t.values = append(t.values, facetValue{facet, term, label})
		t.index[key] = v
	}
	for len(t.byDoc) <= rank {
		t.byDoc = append(t.byDoc, nil)
	}
	if !slices.Contains(t.byDoc[rank], v) {
		t.byDoc[rank] = append(t.byDoc[rank], v)
		for len(t.docs) <= int(v) {
			t.docs = append(t.docs, nil)
		}
		t.docs[v] = append(t.docs[v], int32(rank))
	}
	if facet == facetKind {
		for len(t.kind) <= rank {
			t.kind = append(t.kind, -1)
		}
		t.kind[rank] = v
	}
}

// has reports whether the document of rank carries the value.
func (t *facetTable) has(rank int, facet, term string) bool {
	v, ok := t.index[facet+"\x00"+term]
	return ok && slices.Contains(t.byDoc[rank], v)
}

func newFacetTable(lib *library.Library) *facetTable {
	t := &facetTable{index: map[string]int32{}}
	tax := lib.Taxonomy
	addTerms := func(rank int, f library.Facet, ids []string) {
		for _, id := range ids {
			t.add(rank, string(f), id, tax.Label(f, id))
			if term, ok := tax.Term(f, id); ok && f == library.FacetCause && term.Category != "" {
				t.add(rank, string(library.FacetCauseCategory), term.Category, tax.Label(library.FacetCauseCategory, term.Category))
			}
		}
	}
	for rank, in := range lib.Incidents {
		t.add(rank, facetKind, KindIncident, "Incident")
		for _, f := range []library.Facet{library.FacetCause, library.FacetComponent, library.FacetSymptom, library.FacetFactor, library.FacetDomain} {
			addTerms(rank, f, in.Terms(f))
		}
		if k := orgKey(in.Organization); k != "" {
			t.add(rank, facetOrg, k, in.Organization)
		}
		if in.Year > 0 {
			y := strconv.Itoa(in.Year)
			t.add(rank, facetYear, y, y)
		}
		t.add(rank, facetLayer, layerOf(in.Layer), layerOf(in.Layer))
	}
	for i, pb := range lib.Playbooks {
		rank := len(lib.Incidents) + i
		t.add(rank, facetKind, KindPlaybook, "Playbook")
		addTerms(rank, library.FacetSymptom, pb.Symptoms)
		addTerms(rank, library.FacetComponent, pb.Components)
		t.add(rank, facetLayer, layerOf(pb.Layer), layerOf(pb.Layer))
	}
	t.sortTerms()
	t.pack()
	t.bitsets()
	t.groupByFacet()
	return t
}

// layerOf is the layer of an entry, the public library when it names none.
func layerOf(name string) string {
	if name == "" {
		return library.PublicLayer
	}
	return name
}

// docFilter is a compiled Request filter: a document passes when, for every
// group, it carries at least one of the group's values.
type docFilter struct {
	t      *facetTable
	groups []filterGroup
	kind   int32 // the kind value to keep, or -1 for both
}

// filterGroup is the values of one facet a document must carry one of.
type filterGroup struct {
	facet string
	terms []string
	set   []bool // indexed by value position
}

func (g filterGroup) keep(t *facetTable, rank int) bool {
	for _, v := range t.byDoc[rank] {
		if g.set[v] {
			return true
		}
	}
	return false
}

// keep reports whether the document passes every filter.
func (f *docFilter) keep(rank int) bool { return f.keepBase(rank) && f.keepKind(rank) }

// keepBase applies every filter but the kind, which picks a tab.
func (f *docFilter) keepBase(rank int) bool {
	for _, g := range f.groups {
		if !g.keep(f.t, rank) {
			return false
		}
	}
	return true
}

func (f *docFilter) keepKind(rank int) bool { return f.kind < 0 || f.t.kind[rank] == f.kind }

// keepWithout applies every filter but group skip and the kind.
func (f *docFilter) keepWithout(rank, skip int) bool {
	for i, g := range f.groups {
		if i != skip && !g.keep(f.t, rank) {
			return false
		}
	}
	return true
}

// compileFilter turns the request's filters, which selection resolved,
// into a docFilter. A term filter also admits the term's descendants in
// the taxonomy.
func (ix *Index) compileFilter(r Request) *docFilter {
	f := &docFilter{t: ix.facets, kind: -1}
	group := func(facet string, terms, shown []string) {
		if len(terms) == 0 {
			return
		}
		g := filterGroup{facet: facet, terms: shown, set: make([]bool, len(ix.facets.values))}
		for _, term := range terms {
			if v, ok := ix.facets.index[facet+"\x00"+term]; ok {
				g.set[v] = true
			}
		}
		f.groups = append(f.groups, g)
	}
	if r.Kind != "" {
		f.kind = int32(len(ix.facets.values)) // no document of that kind
		if v, ok := ix.facets.index[facetKind+"\x00"+r.Kind]; ok {
			f.kind = v
		}
	}
	facets := make([]library.Facet, 0, len(r.Filters))
	for facet := range r.Filters {
		facets = append(facets, facet)
	}
	slices.Sort(facets)
	for _, facet := range facets {
		var ids []string
		for _, id := range r.Filters[facet] {
			ids = append(ids, ix.withDescendants(facet, id)...)
		}
		group(string(facet), ids, r.Filters[facet])
	}
	var orgs, years []string
	for _, o := range r.Org {
		orgs = append(orgs, orgKey(o))
	}
	for _, y := range r.Year {
		years = append(years, strconv.Itoa(y))
	}
	group(facetOrg, orgs, r.Org)
	group(facetYear, years, years)
	group(facetLayer, r.Layer, r.Layer)
	return f
}

func (ix *Index) withDescendants(f library.Facet, id string) []string {
	out := []string{id}
	for _, t := range ix.lib.Taxonomy.Terms(f) {
		if t.Parent == id && t.ID != id {
			out = append(out, ix.withDescendants(f, t.ID)...)
		}
	}
	return out
}

// facetCounter counts facet values over the documents of a result. The
// documents added are counted when the counts are first read (flush), in
// whichever of two ways reads less: each document's values, or each
// value's documents against the result set as a bitset: a query matching
// half the library would otherwise add up every value of half its
// documents.
type facetCounter struct {
	t       *facetTable
	counts  []int32
	pending []int32   // documents added and not counted yet
	set     []uint64  // the result set as a bitset (flush)
	groups  [][]int32 // the values found, by facet (result)
}

// counter is a zeroed counter, reused from an earlier search when one was
// released: a fresh one holds a count per value of the library.
func (t *facetTable) counter() *facetCounter {
	if c, ok := t.free.Get().(*facetCounter); ok {
		clear(c.counts)
		c.pending = c.pending[:0]
		return c
	}
	return &facetCounter{t: t, counts: make([]int32, len(t.values))}
}

// release gives c back for another search to use; c is not read after.
func (c *facetCounter) release() { c.t.free.Put(c) }

// add counts the document of rank, once: a document is added at most once
// to a counter.
func (c *facetCounter) add(rank int) { c.pending = append(c.pending, int32(rank)) }

// flush counts the pending documents.
func (c *facetCounter) flush() {
	t := c.t
	if len(c.pending) == 0 {
		return
	}
	// A word of a bitset is read in order and costs far less than a
	// scattered count, hence the weight (countCost).
	if float64(len(c.pending))*t.perDoc*countCost <= float64(t.setCost) {
		c.countByDoc()
	} else {
		c.countBySet()
	}
	c.pending = c.pending[:0]
}

// countByDoc adds up the values of each pending document.
func (c *facetCounter) countByDoc() {
	for _, rank := range c.pending {
		for _, v := range c.t.byDoc[rank] {
			c.counts[v]++
		}
	}
}

// countBySet counts each value's documents in the pending set.
func (c *facetCounter) countBySet() {
	t := c.t
	words := t.bitsetMin()
	if cap(c.set) < words {
		c.set = make([]uint64, words)
	}
	set := c.set[:words]
	clear(set)
	for _, r := range c.pending {
		set[r/64] |= 1 << (r % 64)
	}
	for v, docs := range t.docs {
		n := 0
		if b := t.bits[v]; b != nil {
			for i, w := range b {
				n += mbits.OnesCount64(w & set[i])
			}
		} else {
			for _, r := range docs {
				n += int(set[r/64] >> (r % 64) & 1)
			}
		}
		c.counts[v] += int32(n)
	}
}

// addKind counts only the kind of the document.
func (c *facetCounter) addKind(rank int) {
	if v := c.t.kind[rank]; v >= 0 {
		c.counts[v]++
	}
}

// count is the number of results carrying a value.
func (c *facetCounter) count(facet, term string) int {
	c.flush()
	if v, ok := c.t.index[facet+"\x00"+term]; ok {
		return int(c.counts[v])
	}
	return 0
}

// result lists the values found in the result set per facet, most frequent
// first.
func (c *facetCounter) result() map[string][]FacetCount {
	c.flush()
	// Values are gathered and sorted as positions, and FacetCounts made
	// for those shown only: a common word matches hundreds of
	// organisations, of which maxOrgs are shown, and building all of them
	// was the largest allocation of a query. The organisations kept are
	// selected, not all sorted.
	t := c.t
	if cap(c.groups) < len(t.facetNames) {
		c.groups = make([][]int32, len(t.facetNames))
	}
	groups := c.groups[:len(t.facetNames)]
	for g := range groups {
		groups[g] = groups[g][:0]
	}
	for i, k := range c.counts {
		if k > 0 {
			g := t.facetOf[i]
			groups[g] = append(groups[g], int32(i))
		}
	}
	out := make(map[string][]FacetCount, len(groups))
	order := t.order
	before := func(a, b int32) int {
		if na, nb := c.counts[a], c.counts[b]; na != nb {
			return int(nb) - int(na)
		}
		return int(order[a]) - int(order[b])
	}
	for g, vs := range groups {
		if len(vs) == 0 {
			continue
		}
		facet := t.facetNames[g]
		if facet == facetOrg && len(vs) > maxOrgs {
			vs = firstK(vs, maxOrgs, before)
		}
		slices.SortFunc(vs, before)
		fcs := make([]FacetCount, len(vs))
		for i, v := range vs {
			fv := t.values[v]
			fcs[i] = FacetCount{Term: fv.term, Label: fv.label, Count: int(c.counts[v])}
		}
		out[facet] = fcs
	}
	return out
}

// firstK moves the k values of vs that come first by before into vs[:k],
// in no particular order, and returns vs[:k]: a heap of the k best seen,
// the worst of them on top.
func firstK(vs []int32, k int, before func(a, b int32) int) []int32 {
	h := &worstOnTop{vs: vs[:k], before: before}
	heap.Init(h)
	for _, v := range vs[k:] {
		if before(v, h.vs[0]) < 0 {
			h.vs[0] = v
			heap.Fix(h, 0)
		}
	}
	return h.vs
}

// worstOnTop is a heap of values whose root is the one that comes last by
// before (firstK).
type worstOnTop struct {
	vs     []int32
	before func(a, b int32) int
}

func (h *worstOnTop) Len() int           { return len(h.vs) }
func (h *worstOnTop) Less(i, j int) bool { return h.before(h.vs[i], h.vs[j]) > 0 }
func (h *worstOnTop) Swap(i, j int)      { h.vs[i], h.vs[j] = h.vs[j], h.vs[i] }
func (h *worstOnTop) Push(x any)         { h.vs = append(h.vs, x.(int32)) }
func (h *worstOnTop) Pop() any {
	v := h.vs[len(h.vs)-1]
	h.vs = h.vs[:len(h.vs)-1]
	return v
}
