package search

import (
	"context"
	"fmt"
	"html"
	"slices"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"casebook/internal/library"
)

// Facet sizes for the fields that are not taxonomy facets. A taxonomy facet
// asks for all its terms so every chip on the page has a count.
const (
	facetOrg  = "org"
	facetYear = "year"
	facetKind = "kind"
	orgFacets = 50
)

// Search runs r. An empty query lists the filtered documents in library
// order (newest incident first, then playbooks); a query that cannot be
// read returns a *QueryError.
func (ix *Index) Search(ctx context.Context, r Request) (*Result, error) {
	page, perPage, err := paging(r)
	if err != nil {
		return nil, err
	}
	filter, err := ix.filterQuery(r)
	if err != nil {
		return nil, err
	}
	uq, err := parseQuery(r.Query)
	if err != nil {
		return nil, err
	}

	res := &Result{Query: r.Query, Hits: []Hit{}, Facets: map[string][]FacetCount{}, SuggestedFilters: []Suggestion{}}
	var sr *bleve.SearchResult
	if uq.empty() {
		sr, err = ix.run(ctx, query.NewMatchAllQuery(), filter, page, perPage, false)
	} else {
		sr, err = ix.run(ctx, ix.textQuery(uq, false), filter, page, perPage, true)
		if err == nil && sr.Total == 0 {
			sr, err = ix.run(ctx, ix.textQuery(uq, true), filter, page, perPage, true)
		}
		res.SuggestedFilters = ix.suggestions(r)
	}
	if err != nil {
		return nil, fmt.Errorf("search: %q: %w", r.Query, err)
	}

	res.Total = int(sr.Total)
	var named []termMatch
	if !uq.empty() {
		named = ix.matcher.matches(normalWords(strings.Join(uq.words, " ")))
	}
	for _, h := range sr.Hits {
		src, ok := ix.docs[h.ID]
		if !ok {
			continue
		}
		hit := Hit{ID: h.ID, Score: h.Score}
		if src.incident != nil {
			hit.Kind, hit.Title, hit.Summary = KindIncident, src.incident.Title, src.incident.Summary
		} else {
			hit.Kind, hit.Title, hit.Summary = KindPlaybook, src.playbook.Title, src.playbook.Summary
		}
		if len(h.Locations) > 0 {
			hit.Fragments = fragments(ix.document(h.ID), h.Locations)
		}
		if t := termFragments(src, named); len(t) > 0 {
			if hit.Fragments == nil {
				hit.Fragments = map[string][]string{}
			}
			hit.Fragments["terms"] = t
		}
		res.Hits = append(res.Hits, hit)
	}
	for name, fr := range sr.Facets {
		res.Facets[name] = ix.facetCounts(name, fr.Terms.Terms())
	}
	return res, nil
}

func (ix *Index) run(ctx context.Context, q, filter query.Query, page, perPage int, scored bool) (*bleve.SearchResult, error) {
	b := query.NewBooleanQuery([]query.Query{q}, nil, nil)
	if filter != nil {
		b.AddFilter(filter)
	}
	req := bleve.NewSearchRequestOptions(b, perPage, (page-1)*perPage, false)
	req.PreSearchData = map[string]any{bsearch.BM25PreSearchDataKey: ix.bm25}
	if scored {
		req.SortBy([]string{"-_score", fieldRank})
		req.IncludeLocations = true
	} else {
		req.SortBy([]string{fieldRank})
		req.Score = "none"
	}
	for _, f := range facetFields {
		req.AddFacet(string(f), bleve.NewFacetRequest(string(f), len(ix.lib.Taxonomy.Terms(f))))
	}
	req.AddFacet(facetOrg, bleve.NewFacetRequest(fieldOrg, orgFacets))
	req.AddFacet(facetYear, bleve.NewFacetRequest(fieldYear, orgFacets))
	req.AddFacet(facetKind, bleve.NewFacetRequest(fieldKind, 2))
	return ix.bleve.SearchInContext(ctx, req)
}

func paging(r Request) (page, perPage int, err error) {
	page, perPage = max(r.Page, 1), r.PerPage
	switch {
	case r.Page < 0:
		return 0, 0, badQuery("page %d: pages start at 1", r.Page)
	case perPage < 0 || perPage > MaxPerPage:
		return 0, 0, badQuery("%d results per page: the limit is %d", perPage, MaxPerPage)
	case perPage == 0:
		perPage = DefaultPerPage
	}
	if page > 10000/perPage+1 {
		return 0, 0, badQuery("page %d is past the end of any result", page)
	}
	return page, perPage, nil
}

// filterQuery turns the request's filters into one unscored query: values
// of one facet are alternatives, facets are all required. A term filter
// also admits the term's descendants in the taxonomy.
func (ix *Index) filterQuery(r Request) (query.Query, error) {
	var all []query.Query
	anyOf := func(field string, vals []string) {
		if len(vals) == 0 {
			return
		}
		var qs []query.Query
		for _, v := range vals {
			t := query.NewTermQuery(v)
			t.SetField(field)
			qs = append(qs, t)
		}
		all = append(all, query.NewDisjunctionQuery(qs))
	}
	switch r.Kind {
	case "":
	case KindIncident, KindPlaybook:
		anyOf(fieldKind, []string{r.Kind})
	default:
		return nil, badQuery("unknown kind %q: want %q or %q", r.Kind, KindIncident, KindPlaybook)
	}
	facets := make([]library.Facet, 0, len(r.Filters))
	for f := range r.Filters {
		facets = append(facets, f)
	}
	slices.Sort(facets)
	for _, f := range facets {
		if !slices.Contains(facetFields, f) {
			return nil, badQuery("unknown facet %q", f)
		}
		var ids []string
		for _, id := range r.Filters[f] {
			if _, ok := ix.lib.Taxonomy.Term(f, id); !ok {
				msg := fmt.Sprintf("unknown %s %q", f.Label(), id)
				if n := library.Nearest(id, ix.lib.Taxonomy.IDs(f)); n != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", n)
				}
				return nil, &QueryError{Msg: msg}
			}
			ids = append(ids, ix.withDescendants(f, id)...)
		}
		anyOf(string(f), ids)
	}
	var orgs []string
	for _, o := range r.Org {
		orgs = append(orgs, orgKey(o))
	}
	anyOf(fieldOrg, orgs)
	var years []string
	for _, y := range r.Year {
		years = append(years, strconv.Itoa(y))
	}
	anyOf(fieldYear, years)
	if len(all) == 0 {
		return nil, nil
	}
	return query.NewConjunctionQuery(all), nil
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

// suggestions are the terms the query names, minus filters already applied.
func (ix *Index) suggestions(r Request) []Suggestion {
	out := []Suggestion{}
	for _, s := range ix.matcher.Suggest(r.Query) {
		if !slices.Contains(r.Filters[s.Facet], s.Term) {
			out = append(out, s)
		}
	}
	return out
}

func (ix *Index) facetCounts(name string, terms []*bsearch.TermFacet) []FacetCount {
	out := make([]FacetCount, 0, len(terms))
	for _, t := range terms {
		fc := FacetCount{Term: t.Term, Label: t.Term, Count: t.Count}
		switch name {
		case facetOrg:
			if o, ok := ix.orgs[t.Term]; ok {
				fc.Label = o
			}
		case facetKind:
			fc.Label = strings.ToUpper(t.Term[:1]) + t.Term[1:]
		case facetYear:
		default:
			fc.Label = ix.lib.Taxonomy.Label(library.Facet(name), t.Term)
		}
		out = append(out, fc)
	}
	return out
}

// termFragments names the terms of the query the document is classified
// under, as "Symptom: <mark>Untolerated taint</mark>": the reason a document
// that never uses the query's words is in the results.
func termFragments(src source, named []termMatch) []string {
	var out []string
	seen := map[*library.Term]bool{}
	for _, tm := range named {
		if seen[tm.term] {
			continue
		}
		seen[tm.term] = true
		var has bool
		if src.incident != nil {
			has = slices.Contains(src.incident.Terms(tm.term.Facet), tm.term.ID) ||
				tm.term.Facet == library.FacetCauseCategory && src.incidentCategory(tm.term.ID)
		} else if tm.term.Facet == library.FacetSymptom {
			has = slices.Contains(src.playbook.Symptoms, tm.term.ID)
		} else if tm.term.Facet == library.FacetComponent {
			has = slices.Contains(src.playbook.Components, tm.term.ID)
		}
		if has {
			out = append(out, html.EscapeString(tm.term.Facet.Label())+": <mark>"+html.EscapeString(tm.term.Label)+"</mark>")
		}
	}
	return out
}
