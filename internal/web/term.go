package web

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"casebook/internal/library"
	"casebook/internal/selection"
	"casebook/internal/store"
	"casebook/web/templates"
)

func (s *Server) handleTerm(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if canon := canonicalPath(r.URL.Path); canon != r.URL.Path {
		redirectSamePage(w, r, canon)
		return nil
	}
	facet, ok := library.ParseFacet(chi.URLParam(r, "facet"))
	if !ok {
		return userError(http.StatusNotFound, "error.no_facet", "facet", chi.URLParam(r, "facet"))
	}
	id := chi.URLParam(r, "id")
	term, ok := c.Taxonomy.Term(facet, id)
	if !ok {
		return notFoundOf(selection.Unknown(string(facet), id, c.Taxonomy.IDs(facet)))
	}
	param := string(facet)
	pr := printer(ctx)
	// The term's name in the page's language first, the other beside it.
	label, other := term.Label, term.LabelKo
	if pr.Lang().Korean() && term.LabelKo != "" {
		label, other = term.LabelKo, term.Label
	}
	p := templates.TermPage{Chrome: s.chrome(c, label, "library", ""), Facet: param, FacetLabel: facetLabel(pr, facet),
		ID: term.ID, Label: label, LabelOther: other, Aliases: term.Aliases,
		FilterHref: filterHref(param, term.ID)}
	p.Description, p.DescriptionEnglish = termDescription(pr.Lang().Korean(), term)
	if term.Category != "" {
		p.Category = templates.Link{Label: termLabel(pr, c.Taxonomy, library.FacetCauseCategory, term.Category), Href: "/terms/cause_category/" + term.Category}
	}
	for _, child := range c.Taxonomy.Terms(facet) {
		if child.Parent == term.ID {
			p.Children = append(p.Children, templates.Link{Label: termOwnLabel(pr, child), Href: "/terms/" + param + "/" + child.ID})
		}
	}
	if facet == library.FacetCauseCategory {
		for _, cause := range c.Taxonomy.Terms(library.FacetCause) {
			if cause.Category == term.ID {
				p.Children = append(p.Children, templates.Link{Label: termOwnLabel(pr, cause), Href: "/terms/cause/" + cause.ID})
			}
		}
	}
	f := store.Filter{Terms: map[library.Facet][]string{facet: {term.ID}}}
	items, _, err := c.Store.ListIncidents(ctx, f, store.SortNewest, 1, 200)
	if err != nil {
		return err
	}
	for _, it := range items {
		p.Cards = append(p.Cards, incidentCard(pr, c.Taxonomy, it))
	}
	co, err := c.Store.CoOccurring(ctx, facet, term.ID, 15)
	if err != nil {
		return err
	}
	for _, ct := range co {
		p.CoTerms = append(p.CoTerms, templates.Link{Label: facetLabel(pr, ct.Facet) + ": " + termLabel(pr, c.Taxonomy, ct.Facet, ct.Term),
			Href: "/terms/" + string(ct.Facet) + "/" + ct.Term, Count: ct.Count, Kind: string(ct.Facet)})
	}
	if facet == library.FacetSymptom || facet == library.FacetComponent {
		pbs, err := c.Store.Playbooks(ctx)
		if err != nil {
			return err
		}
		for _, pb := range pbs {
			if facet == library.FacetSymptom && contains(pb.Symptoms, term.ID) {
				p.Playbooks = append(p.Playbooks, templates.Link{Label: pr.PickText(pb.Title, pb.TitleKo), Href: "/playbooks/" + pb.ID})
			}
		}
	}
	return render(ctx, w, http.StatusOK, templates.TermView(p))
}

// termDescription picks the term's description in the page's language: the
// Korean one on a Korean page, else the English one, which it marks so the
// page says it is in English.
func termDescription(korean bool, term *library.Term) (text string, english bool) {
	if korean && term.DescriptionKo != "" {
		return term.DescriptionKo, false
	}
	return term.Description, korean && term.Description != ""
}
