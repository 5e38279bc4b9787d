package web

import (
	"net/http"

	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/store"
	"casebook/web/templates"
)

// termsIndexFacets are the vocabularies /terms lists, in the library
// sidebar's order; causes are grouped under their category.
var termsIndexFacets = []library.Facet{library.FacetCause, library.FacetComponent, library.FacetSymptom,
	library.FacetFactor, library.FacetDomain}

// handleTerms is the index of the whole vocabulary: every term of every
// facet with the number of incidents classified with it.
func (s *Server) handleTerms(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	counts, err := c.Store.FacetCounts(ctx, store.Filter{}, c.Taxonomy)
	if err != nil {
		return err
	}
	pr := printer(ctx)
	p := templates.TermsIndex{Chrome: s.chrome(c, pr.T("terms.title"), "library", "")}
	for _, f := range termsIndexFacets {
		p.Facets = append(p.Facets, termsFacet(pr, c.Taxonomy, f, countsByTerm(counts[string(f)])))
	}
	return render(ctx, w, http.StatusOK, templates.TermsIndexView(p))
}

func countsByTerm(cs []store.FacetCount) map[string]int {
	m := make(map[string]int, len(cs))
	for _, c := range cs {
		m[c.Term] = c.Count
	}
	return m
}

// termsFacet lists one facet's terms; causes come in one group per
// category, other facets in one untitled group.
func termsFacet(pr *i18n.Printer, tax *library.Taxonomy, f library.Facet, counts map[string]int) templates.TermsFacet {
	param := string(f)
	tf := templates.TermsFacet{Param: param, Label: facetLabel(pr, f)}
	entry := func(t *library.Term) templates.TermEntry {
		e := templates.TermEntry{Label: termOwnLabel(pr, t), Href: "/terms/" + param + "/" + t.ID, Count: counts[t.ID]}
		// The other language's name beside it: people search in both.
		if pr.Lang().Korean() && t.LabelKo != "" {
			e.Other = t.Label
		} else if !pr.Lang().Korean() {
			e.Other = t.LabelKo
		}
		tf.Total++
		return e
	}
	if f != library.FacetCause {
		g := templates.TermsGroup{}
		for _, t := range tax.Terms(f) {
			g.Terms = append(g.Terms, entry(t))
		}
		tf.Groups = []templates.TermsGroup{g}
		return tf
	}
	for _, cat := range tax.Terms(library.FacetCauseCategory) {
		g := templates.TermsGroup{Label: termOwnLabel(pr, cat), Href: "/terms/cause_category/" + cat.ID}
		for _, t := range tax.Terms(library.FacetCause) {
			if t.Category == cat.ID {
				g.Terms = append(g.Terms, entry(t))
			}
		}
		if len(g.Terms) > 0 {
			tf.Groups = append(tf.Groups, g)
		}
	}
	return tf
}
