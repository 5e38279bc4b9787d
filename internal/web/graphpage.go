package web

import (
	"net/http"
	"strings"

	"casebook/internal/library"
	"casebook/web/templates"
)

// parseFocus validates "facet:term".
func parseFocus(s string, tax *library.Taxonomy) (string, error) {
	if s == "" {
		return "", nil
	}
	f, id, ok := strings.Cut(s, ":")
	facet, fok := library.ParseFacet(f)
	if !ok || !fok {
		return "", badRequest{"invalid focus " + quote(s) + ": want facet:term, e.g. component:gpu-driver"}
	}
	if f == "case" {
		return s, nil
	}
	if _, ok := tax.Term(facet, id); !ok {
		return "", badRequest{unknownValue(string(facet), id, tax.IDs(facet))}
	}
	return string(facet) + ":" + id, nil
}

func quote(s string) string { return "\"" + s + "\"" }

func (s *Server) handleGraphPage(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current()
	if err != nil {
		return err
	}
	st, err := parseListFor(r, c)
	if err != nil {
		return err
	}
	focus, err := parseFocus(r.URL.Query().Get("focus"), c.Taxonomy)
	if err != nil {
		return err
	}
	_, gv, _, err := s.graphView(r.Context(), c, st, focus, 12)
	if err != nil {
		return err
	}
	p := templates.GraphPage{Chrome: s.chrome(c, "Graph", "graph", ""), Graph: gv, Focus: focus}
	p.Chips, p.ClearHref = chips(c.Taxonomy, st, "/graph", c.Orgs)
	return render(r.Context(), w, http.StatusOK, templates.GraphPageView(p))
}
