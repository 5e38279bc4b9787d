package web

import (
	"net/http"
	"slices"

	"github.com/go-chi/chi/v5"

	"casebook/internal/i18n"
	"casebook/internal/trends"
	"casebook/web/templates"
)

// handleTrends draws the selection's trends: the library's filters in,
// four charts with their tables out.
func (s *Server) handleTrends(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	st, err := parseListFor(r, c)
	if err != nil {
		return err
	}
	ctx := r.Context()
	rep, err := trends.Compute(ctx, c.Store, c.Taxonomy, st.Filter)
	if err != nil {
		return err
	}
	pr := printer(ctx)
	p := templates.TrendsPage{Chrome: s.chrome(c, pr.T("trends.title"), "trends", ""), Incidents: rep.Incidents}
	p.Chips, p.ClearHref = chips(pr, c.Taxonomy, st, "/trends", c.Orgs)
	p.Chips = append(p.Chips, sourceChips(pr, st, "/trends")...)
	p.Chrome.Title = listTitle(pr, p.Chrome.Title, p.Chips, 1)
	p.Chrome.Feed = feedHref(st)
	p.Charts = trendCharts(pr, rep)
	return render(ctx, w, http.StatusOK, templates.TrendsView(p))
}

// trendsJSON is the JSON of /api/trends: the report and the language asked.
type trendsJSON struct {
	trends.Report
	Lang string `json:"lang"`
}

// handleAPITrends answers /api/trends (every chart) and
// /api/trends/{chart} (one) with the numbers the page draws.
func (s *Server) handleAPITrends(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	st, err := parseListFor(r, c)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "chart")
	if id != "" && !slices.Contains(trends.Charts, id) {
		return notFoundMsg(i18n.M("select.no_chart", "chart", quote(id)))
	}
	rep, err := trends.Compute(r.Context(), c.Store, c.Taxonomy, st.Filter)
	if err != nil {
		return err
	}
	lang := string(printer(r.Context()).Lang())
	if id == "" {
		writeJSON(w, http.StatusOK, trendsJSON{Report: rep, Lang: lang})
		return nil
	}
	chart, _ := rep.Chart(id)
	writeJSON(w, http.StatusOK, map[string]any{"chart": id, "incidents": rep.Incidents, id: chart, "lang": lang})
	return nil
}
