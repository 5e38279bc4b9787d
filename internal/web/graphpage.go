package web

import (
	"net/http"

	"casebook/internal/selection"
	"casebook/web/templates"
)

func quote(s string) string { return "\"" + s + "\"" }

func (s *Server) handleGraphPage(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	st, err := parseListFor(r, c)
	if err != nil {
		return err
	}
	focus, err := selection.ParseFocus(r.URL.Query().Get("focus"), c.Taxonomy)
	if err != nil {
		return err
	}
	g, gv, _, err := s.graphView(r.Context(), c, st, focus, 12)
	if err != nil {
		return err
	}
	pr := printer(r.Context())
	// Only the graph page shows the table; the library's panel skips it.
	gv.Matrix = causeSymptomMatrix(pr, c.Taxonomy, g, st, 8)
	p := templates.GraphPage{Chrome: s.chrome(c, pr.T("graph.title"), "graph", ""), Graph: gv, Focus: focus}
	p.Chips, p.ClearHref = chips(pr, c.Taxonomy, st, "/graph", c.Orgs)
	p.Chips = append(p.Chips, sourceChips(pr, st, "/graph")...)
	p.Chrome.Title = listTitle(pr, p.Chrome.Title, p.Chips, 1)
	p.Chrome.Feed = feedHref(st)
	return render(r.Context(), w, http.StatusOK, templates.GraphPageView(p))
}
