package search

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"casebook/internal/library"
)

// Facet names of the fields that are not taxonomy facets.
const (
	facetOrg  = "org"
	facetYear = "year"
	facetKind = "kind"
	maxOrgs   = 50 // organizations listed in the org facet, most frequent first
)

// facetValue is one value of one facet: symptom "pod-pending", org "openai",
// year "2024", kind "playbook".
type facetValue struct {
	facet, term, label string
}

// facetTable holds the facet values of every document in memory, by rank.
// Filters and facet counts read it instead of the index: counting facets
// through bleve's doc values was most of the cost of a query at 10,000
// documents, and a few integers per document cost nothing.
type facetTable struct {
	values []facetValue
	index  map[string]int32 // facet + "\x00" + term -> position in values
	byDoc  [][]int32        // value positions of each document, by rank
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
	}
	for i, pb := range lib.Playbooks {
		rank := len(lib.Incidents) + i
		t.add(rank, facetKind, KindPlaybook, "Playbook")
		addTerms(rank, library.FacetSymptom, pb.Symptoms)
		addTerms(rank, library.FacetComponent, pb.Components)
	}
	return t
}

// docFilter is a compiled Request filter: a document passes when, for every
// group, it carries at least one of the group's values.
type docFilter struct {
	t      *facetTable
	groups [][]bool // per group, indexed by value position
}

func (f *docFilter) keep(rank int) bool {
	for _, g := range f.groups {
		ok := false
		for _, v := range f.t.byDoc[rank] {
			if g[v] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// compileFilter checks the request's filters and turns them into a
// docFilter. A term filter also admits the term's descendants in the
// taxonomy; an unknown facet or term is the user's mistake.
func (ix *Index) compileFilter(r Request) (*docFilter, error) {
	f := &docFilter{t: ix.facets}
	group := func(facet string, terms []string) {
		if len(terms) == 0 {
			return
		}
		g := make([]bool, len(ix.facets.values))
		for _, term := range terms {
			if v, ok := ix.facets.index[facet+"\x00"+term]; ok {
				g[v] = true
			}
		}
		f.groups = append(f.groups, g)
	}
	switch r.Kind {
	case "":
	case KindIncident, KindPlaybook:
		group(facetKind, []string{r.Kind})
	default:
		return nil, badQuery("unknown kind %q: want %q or %q", r.Kind, KindIncident, KindPlaybook)
	}
	facets := make([]library.Facet, 0, len(r.Filters))
	for facet := range r.Filters {
		facets = append(facets, facet)
	}
	slices.Sort(facets)
	tax := ix.lib.Taxonomy
	for _, facet := range facets {
		if !slices.Contains(facetFields, facet) {
			return nil, badQuery("unknown facet %q", facet)
		}
		var ids []string
		for _, id := range r.Filters[facet] {
			if _, ok := tax.Term(facet, id); !ok {
				msg := fmt.Sprintf("unknown %s %q", strings.ToLower(facet.Label()), id)
				if n := library.Nearest(id, tax.IDs(facet)); n != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", n)
				}
				return nil, &QueryError{Msg: msg}
			}
			ids = append(ids, ix.withDescendants(facet, id)...)
		}
		group(string(facet), ids)
	}
	var orgs, years []string
	for _, o := range r.Org {
		orgs = append(orgs, orgKey(o))
	}
	for _, y := range r.Year {
		years = append(years, strconv.Itoa(y))
	}
	group(facetOrg, orgs)
	group(facetYear, years)
	return f, nil
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

// facetCounter counts facet values over the documents of a result.
type facetCounter struct {
	t      *facetTable
	counts []int32
}

func (t *facetTable) counter() *facetCounter {
	return &facetCounter{t: t, counts: make([]int32, len(t.values))}
}

func (c *facetCounter) add(rank int) {
	for _, v := range c.t.byDoc[rank] {
		c.counts[v]++
	}
}

// result lists the values found in the result set per facet, most frequent
// first.
func (c *facetCounter) result() map[string][]FacetCount {
	out := map[string][]FacetCount{}
	for i, n := range c.counts {
		if n > 0 {
			v := c.t.values[i]
			out[v.facet] = append(out[v.facet], FacetCount{Term: v.term, Label: v.label, Count: int(n)})
		}
	}
	for facet, fcs := range out {
		sort.Slice(fcs, func(i, j int) bool {
			if fcs[i].Count != fcs[j].Count {
				return fcs[i].Count > fcs[j].Count
			}
			return fcs[i].Term < fcs[j].Term
		})
		if facet == facetOrg && len(fcs) > maxOrgs {
			out[facet] = fcs[:maxOrgs]
		}
	}
	return out
}
