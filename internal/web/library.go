package web

import (
	"casebook/internal/graph"
	"net/http"
	"strconv"

	"casebook/internal/content"
	"casebook/internal/selection"
	"casebook/internal/store"
	"casebook/web/templates"
)

const perPageDefault = 20

// parseListFor parses the list state against the loaded content.
func parseListFor(r *http.Request, c *content.Content) (listState, error) {
	sel, err := selection.Parse(r.URL.Query(), c.Taxonomy, c.Orgs, c.LayerNames(), selection.Paging{DefaultPerPage: perPageDefault, MaxPerPage: 100})
	return listState{Selection: sel, defaultPer: perPageDefault}, err
}

// sideGraphCases is the most cases the graph beside a list draws at once;
// above it the panel shows the terms, and a focused term's cases. The
// graph page always draws them all.
const sideGraphCases = 60

func caseCount(g graph.Graph) int {
	n := 0
	for _, nd := range g.Nodes {
		if nd.Kind == "case" {
			n++
		}
	}
	return n
}

// handleLibrary is the faceted incident list: filters only, newest first.
func (s *Server) handleLibrary(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	st, err := parseListFor(r, c)
	if err != nil {
		return err
	}
	ctx := r.Context()
	items, total, err := c.Store.ListIncidents(ctx, st.Filter, st.Sort, st.Page, st.PerPage)
	if err != nil {
		return err
	}
	if total > 0 && len(items) == 0 {
		last := (total + st.PerPage - 1) / st.PerPage
		return userError(http.StatusNotFound, "error.page_range", "page", strconv.Itoa(st.Page), "pages", strconv.Itoa(last))
	}
	counts, err := c.Store.FacetCounts(ctx, st.Filter, c.Taxonomy)
	if err != nil {
		return err
	}
	g, gv, common, err := s.graphView(ctx, c, st, "", 0)
	if err != nil {
		return err
	}
	gv.TermsOnly = caseCount(g) > sideGraphCases
	pr := printer(ctx)
	p := templates.LibraryPage{Chrome: s.chrome(c, pr.T("library.title"), "library", ""), Heading: pr.T("library.heading"),
		Facets: append(sourceFacet(pr, c, st, counts, "/"), facetGroups(pr, c.Taxonomy, st, counts, "/")...), Pager: pager(st, total, "/"), Common: common, Graph: gv,
		EmptyNote: pr.T("library.filters_only")}
	if st.Sort != store.SortNewest {
		p.EmptyNote = pr.T("library.filters_only_sorted")
	}
	p.Chips, p.ClearHref = chips(pr, c.Taxonomy, st, "/", c.Orgs)
	p.Chips = append(p.Chips, sourceChips(pr, st, "/")...)
	p.Chrome.Title = listTitle(pr, p.Chrome.Title, p.Chips, st.Page)
	p.Chrome.Feed = feedHref(st)
	for _, it := range items {
		p.Cards = append(p.Cards, incidentCard(pr, c.Taxonomy, it))
	}
	for _, so := range []struct{ id, label string }{{store.SortNewest, pr.T("library.sort_newest")}, {store.SortOldest, pr.T("library.sort_oldest")}, {store.SortTitle, pr.T("library.sort_title")}} {
		x := st.clone()
		x.Sort, x.Page = so.id, 1
		p.Sorts = append(p.Sorts, templates.SortLink{Label: so.label, Href: x.href("/"), Current: st.Sort == so.id})
	}
	if r.URL.Path == "/" && st.Filter.Empty() && st.Page == 1 && c.Triage != nil && c.Triage.Root() != nil {
		p.Home = homeView(pr, c.Triage)
	}
	return render(ctx, w, http.StatusOK, templates.LibraryView(p))
}
