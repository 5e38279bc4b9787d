package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"casebook/internal/access"
	"casebook/internal/graph"
	"casebook/internal/library"
	"casebook/internal/selection"
	"casebook/internal/store"
)

// incidentList is the JSON of GET /api/incidents (a contract: extend, don't rename).
type incidentList struct {
	Total   int                           `json:"total"`
	Page    int                           `json:"page"`
	PerPage int                           `json:"per_page"`
	Items   []store.IncidentSummary       `json:"items"`
	Facets  map[string][]store.FacetCount `json:"facets"`
	// Lang is the request's language (?lang, the cookie, Accept-Language,
	// the server default). Text fields come in both languages where both
	// exist (title and title_ko, label and label_ko); Lang says which one
	// the client asked to show.
	Lang string `json:"lang"`
}

func (s *Server) handleAPIIncidents(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	st, err := parseListFor(r, c)
	if err != nil {
		return err
	}
	items, total, err := c.Store.ListIncidents(r.Context(), st.Filter, st.Sort, st.Page, st.PerPage)
	if err != nil {
		return err
	}
	facets, err := c.Store.FacetCounts(r.Context(), st.Filter, c.Taxonomy)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, incidentList{Total: total, Page: st.Page, PerPage: st.PerPage, Items: items,
		Facets: facetsWithKo(c.Taxonomy, facets), Lang: string(printer(r.Context()).Lang())})
	return nil
}

func (s *Server) handleAPIIncident(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	in, err := c.Store.Incident(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, in)
	return nil
}

func (s *Server) handleAPIPlaybooks(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	pbs, err := c.Store.Playbooks(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"total": len(pbs), "items": pbs, "lang": string(printer(r.Context()).Lang())})
	return nil
}

func (s *Server) handleAPIPlaybook(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	pb, err := c.Store.Playbook(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pb)
	return nil
}

func (s *Server) handleAPITaxonomy(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	out := map[string][]*library.Term{}
	for _, f := range library.Facets {
		terms := c.Taxonomy.Terms(f)
		if terms == nil {
			terms = []*library.Term{}
		}
		out[string(f)] = terms
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleAPIGraph(w http.ResponseWriter, r *http.Request) error {
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
	if st.Query != "" {
		// The graph of a search result: the incidents the query finds.
		if c.Search == nil {
			return userError(http.StatusServiceUnavailable, "error.search_unavailable")
		}
		x := st.clone()
		x.Page, x.Kind, x.Sort, x.PerPage = 1, "", "", 0
		who := caller(r)
		if err := s.limiter.Take(who, 0); err != nil {
			return err
		}
		start := time.Now()
		g, err := s.searchGraphs.get(r.Context(), c, x.SearchRequest(), x.values().Encode(), focus)
		s.limiter.Charge(who, access.CostOf(time.Since(start)))
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, graphWithKo(c.Taxonomy, g))
		return nil
	}
	g, err := c.GraphOf(r.Context(), st.Filter, focus)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, graphWithKo(c.Taxonomy, g))
	return nil
}

// handleAPIProblems lists the content problems of the loaded library, so a
// contributor can see why a file is missing without reading server logs.
func (s *Server) handleAPIProblems(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	type problem struct {
		Path  string `json:"path"`
		Line  int    `json:"line"`
		Msg   string `json:"message"`
		Layer string `json:"layer,omitempty"`
		Todo  bool   `json:"todo,omitempty"`
	}
	out := []problem{}
	for _, p := range c.Problems {
		out = append(out, problem{p.InLayer(c.Roots), p.Line, p.Msg, p.Layer, p.Todo})
	}
	body := map[string]any{"hash": c.Hash, "problems": out}
	if f := s.content.FailureFor(s.seesRestricted(r)); f != nil {
		// The library on disk did not load: its problems are in the
		// error, and what is listed is the library still served.
		body["reload"] = reloadJSON(f, c.Roots)
	}
	writeJSON(w, http.StatusOK, body)
	return nil
}

// facetsWithKo copies facet counts with the Korean label of each taxonomy
// term; the counts may be a cached value and are not changed.
func facetsWithKo(tax *library.Taxonomy, in map[string][]store.FacetCount) map[string][]store.FacetCount {
	out := make(map[string][]store.FacetCount, len(in))
	for k, counts := range in {
		f, ok := library.ParseFacet(k)
		cp := make([]store.FacetCount, len(counts))
		for i, fc := range counts {
			cp[i] = fc
			if t, found := tax.Term(f, fc.Term); ok && found {
				cp[i].LabelKo = t.LabelKo
			}
		}
		out[k] = cp
	}
	return out
}

// graphWithKo copies a (cached, shared) graph with the Korean label of each
// term node, so a Korean page draws Korean labels.
func graphWithKo(tax *library.Taxonomy, g graph.Graph) graph.Graph {
	nodes := make([]graph.Node, len(g.Nodes))
	for i, n := range g.Nodes {
		nodes[i] = n
		if f, ok := library.ParseFacet(n.Kind); ok {
			if t, found := tax.Term(f, strings.TrimPrefix(n.ID, n.Kind+":")); found {
				nodes[i].LabelKo = t.LabelKo
			}
		}
	}
	return graph.Graph{Nodes: nodes, Edges: g.Edges}
}
