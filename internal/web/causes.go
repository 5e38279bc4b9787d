package web

import (
	"net/http"
	"strconv"

	"casebook/internal/library"
	"casebook/internal/store"
	"casebook/web/templates"
)

// handleCauses groups the (filtered) incidents by cause category, then cause.
func (s *Server) handleCauses(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	st, err := parseListFor(r, c)
	if err != nil {
		return err
	}
	ctx := r.Context()
	items, total, err := c.Store.ListIncidents(ctx, st.Filter, store.SortNewest, 1, 100000)
	if err != nil {
		return err
	}
	pr := printer(ctx)
	p := templates.CausesPage{Chrome: s.chrome(c, pr.T("causes.title"), "causes", ""), Total: total}
	chipsNow, _ := chips(pr, c.Taxonomy, st, "/causes", c.Orgs)
	p.Chrome.Title = listTitle(pr, p.Chrome.Title, chipsNow, 1)
	p.Chrome.Feed = feedHref(st)
	for _, cat := range c.Taxonomy.Terms(library.FacetCauseCategory) {
		g := templates.CauseCategoryGroup{ID: cat.ID, Label: termOwnLabel(pr, cat), Href: filterHref("cause_category", cat.ID)}
		seen := map[string]bool{}
		for _, cause := range c.Taxonomy.Terms(library.FacetCause) {
			if cause.Category != cat.ID {
				continue
			}
			cg := templates.CauseGroup{ID: cause.ID, Label: termOwnLabel(pr, cause), Href: "/terms/cause/" + cause.ID}
			for _, it := range items {
				if contains(it.Causes, cause.ID) {
					cg.Incidents = append(cg.Incidents, templates.CauseRow{ID: it.ID, Title: pr.PickText(it.Title, it.TitleKo), Href: "/incidents/" + it.ID,
						Organization: it.Organization, Year: strconv.Itoa(it.Year)})
					seen[it.ID] = true
				}
			}
			if len(cg.Incidents) > 0 {
				g.Causes = append(g.Causes, cg)
			}
		}
		g.Count = len(seen)
		if g.Count > 0 {
			p.Categories = append(p.Categories, g)
		}
	}
	return render(ctx, w, http.StatusOK, templates.CausesView(p))
}
