package search

import (
	"context"
	"fmt"
	"html"
	"slices"
	"sort"
	"strings"

	"github.com/blevesearch/bleve/v2"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"casebook/internal/library"
)

// Search runs r. An empty query lists the filtered documents in library
// order (newest incident first, then playbooks); a query that cannot be
// read returns a *QueryError.
func (ix *Index) Search(ctx context.Context, r Request) (*Result, error) {
	page, perPage, err := paging(r)
	if err != nil {
		return nil, err
	}
	filter, err := ix.compileFilter(r)
	if err != nil {
		return nil, err
	}
	uq, err := parseQuery(r.Query)
	if err != nil {
		return nil, err
	}
	from := (page - 1) * perPage

	res := &Result{Query: r.Query, Hits: []Hit{}, SuggestedFilters: []Suggestion{}}
	var c *collection
	var locs map[string]bsearch.FieldTermLocationMap
	var named []termMatch
	if uq.empty() {
		c = ix.list(filter, from, perPage)
	} else {
		c, locs, err = ix.match(ctx, uq, filter, from, perPage)
		if err != nil {
			return nil, fmt.Errorf("search: %q: %w", r.Query, err)
		}
		res.SuggestedFilters = ix.suggestions(r)
		named = ix.matcher.matches(normalWords(strings.Join(uq.words, " ")))
	}
	res.Total = c.total
	res.Facets = c.facets.result()
	for _, d := range c.top {
		src := ix.byRank[d.rank]
		hit := Hit{ID: src.id(), Score: d.score}
		if src.incident != nil {
			hit.Kind, hit.Title, hit.Summary = KindIncident, src.incident.Title, src.incident.Summary
		} else {
			hit.Kind, hit.Title, hit.Summary = KindPlaybook, src.playbook.Title, src.playbook.Summary
		}
		if l := locs[hit.ID]; len(l) > 0 {
			hit.Fragments = fragments(ix.document(d.rank), l)
		}
		if t := ix.termFragments(d.rank, named); len(t) > 0 {
			if hit.Fragments == nil {
				hit.Fragments = map[string][]string{}
			}
			hit.Fragments["terms"] = t
		}
		res.Hits = append(res.Hits, hit)
	}
	return res, nil
}

// rescoreWindow is how many of the best matches get the phrase bonus. A
// bonus moves a document up within this window only, so the order of
// later pages does not depend on which page was asked for.
const rescoreWindow = 30

// strictEnough is how many documents matching every word make the looser
// tiers unnecessary. It does not depend on the page, so every page of a
// result comes from the same tier.
const strictEnough = 20

// match runs a text query: the words select and rank the matches, trying
// the tiers from all words to any word; then the match positions of the
// best rescoreWindow give the phrase bonus and the highlights. c.top holds
// the documents of the requested page.
func (ix *Index) match(ctx context.Context, uq *userQuery, filter *docFilter, from, perPage int) (*collection, map[string]bsearch.FieldTermLocationMap, error) {
	window := max(from+perPage, rescoreWindow)
	var c *collection
	var positions query.Query
	for _, t := range []tier{allWords, mostWords, anyWord} {
		tq, pq, ok := ix.textQuery(uq, t)
		if !ok {
			continue
		}
		var err error
		if c, err = ix.collect(ctx, tq, filter, window); err != nil {
			return nil, nil, err
		}
		positions = pq
		if c.total >= strictEnough || t != allWords && c.total > 0 {
			break
		}
	}
	if len(c.top) == 0 {
		return c, nil, nil
	}
	// Positions are needed for the window (phrase bonus) and the page
	// (highlights).
	end := min(from+perPage, len(c.top))
	page := c.top[min(from, end):end]
	win := c.top[:min(rescoreWindow, len(c.top))]
	need := append(append([]scored{}, win...), page...)
	locs, err := ix.locations(ctx, positions, need)
	if err != nil {
		return nil, nil, err
	}
	tokens := ix.english.Analyze([]byte(uq.loose))
	for i, d := range win {
		win[i].score = d.score * (1 + phraseBonus(tokens, locs[ix.byRank[d.rank].id()]))
	}
	sort.Slice(win, func(i, j int) bool { return better(win[i], win[j]) })
	c.top = c.top[min(from, end):end]
	return c, locs, nil
}

// locations runs q (the positions query of textQuery) over the documents of
// top only, for the positions of their matches. Asking for positions in the
// first pass would read them for every match, not only for the few ranked
// and shown.
func (ix *Index) locations(ctx context.Context, q query.Query, top []scored) (map[string]bsearch.FieldTermLocationMap, error) {
	ids := make([]string, len(top))
	for i, d := range top {
		ids[i] = ix.byRank[d.rank].id()
	}
	only := query.NewDocIDQuery(ids)
	only.SetBoost(0)
	req := bleve.NewSearchRequestOptions(query.NewConjunctionQuery([]query.Query{only, q}), len(ids), 0, false)
	req.IncludeLocations = true
	req.Score = "none"
	sr, err := ix.bleve.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bsearch.FieldTermLocationMap, len(sr.Hits))
	for _, h := range sr.Hits {
		out[h.ID] = h.Locations
	}
	return out, nil
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

// termFragments names the terms of the query the document is classified
// under, as "Symptom: <mark>Untolerated taint</mark>": the reason a document
// that never uses the query's words is in the results.
func (ix *Index) termFragments(rank int, named []termMatch) []string {
	var out []string
	seen := map[*library.Term]bool{}
	for _, tm := range named {
		if seen[tm.term] {
			continue
		}
		seen[tm.term] = true
		if ix.facets.has(rank, string(tm.term.Facet), tm.term.ID) {
			out = append(out, html.EscapeString(tm.term.Facet.Label())+": <mark>"+html.EscapeString(tm.term.Label)+"</mark>")
		}
	}
	return out
}
