package search

import (
	"context"
	"fmt"
	"time"

	"casebook/internal/library"
)

// TermLink is one edge of the graph of a result: an incident and a term it
// is classified under.
type TermLink struct {
	Incident string
	Facet    library.Facet
	Term     string
}

// graphFacets are the facets the graph draws.
var graphFacets = map[string]bool{
	string(library.FacetCause): true, string(library.FacetComponent): true,
	string(library.FacetSymptom): true, string(library.FacetFactor): true,
}

// maxGraphIncidents bounds the incidents a result's graph draws: the best
// matches first. A graph of more cases than this is unreadable anyway.
const maxGraphIncidents = 2000

// Links returns the incident-term edges of the incidents of r's result
// (every page, at most maxGraphIncidents, best matches first), for the
// graph panel of a search. It reads the facet table, not the database.
func (ix *Index) Links(ctx context.Context, r Request) ([]TermLink, error) {
	r.Kind, r.Page, r.PerPage = KindIncident, 1, 1
	filter := ix.compileFilter(r)
	uq, err := parseQuery(r.Query)
	if err != nil {
		return nil, err
	}
	var ranks []int
	if uq.empty() {
		for rank := range ix.byRank {
			if filter.keep(rank) && len(ranks) < maxGraphIncidents {
				ranks = append(ranks, rank)
			}
		}
	} else {
		u := &run{ix: ix, s: ix.getScratch(), ctx: ctx, deadline: time.Now().Add(queryTimeBox)}
		defer ix.putScratch(u.s)
		p := ix.plan(uq)
		if err := u.match(p, filter.keepBase); err != nil {
			return nil, fmt.Errorf("search: links of %q: %w", r.Query, err)
		}
		c := ix.gather(u, u.selector(p), p, filter, maxGraphIncidents)
		c.facets.release()
		for _, d := range c.top {
			ranks = append(ranks, d.rank)
		}
	}
	var out []TermLink
	for _, rank := range ranks {
		in := ix.byRank[rank].incident
		if in == nil {
			continue
		}
		for _, v := range ix.facets.byDoc[rank] {
			fv := ix.facets.values[v]
			if graphFacets[fv.facet] {
				out = append(out, TermLink{Incident: in.ID, Facet: library.Facet(fv.facet), Term: fv.term})
			}
		}
	}
	return out, nil
}
