package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/store"
	"casebook/web/templates"
)

func (s *Server) handlePlaybooks(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	pbs, err := c.Store.Playbooks(r.Context())
	if err != nil {
		return err
	}
	pr := printer(r.Context())
	p := templates.PlaybookList{Chrome: s.chrome(c, pr.T("nav.playbooks"), "playbooks", "")}
	for _, pb := range pbs {
		card := playbookCard(pr, pb)
		row := templates.TermRow{Facet: "symptom", Label: facetLabel(pr, library.FacetSymptom)}
		for _, sym := range pb.Symptoms {
			row.Links = append(row.Links, templates.Link{Label: termLabel(pr, c.Taxonomy, library.FacetSymptom, sym), Href: "/terms/symptom/" + sym})
		}
		if len(row.Links) > 0 {
			card.Terms = []templates.TermRow{row}
		}
		p.Items = append(p.Items, card)
	}
	return render(r.Context(), w, http.StatusOK, templates.PlaybookListView(p))
}

func (s *Server) handlePlaybook(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	id := chi.URLParam(r, "id")
	if low := strings.ToLower(id); low != id {
		redirectSamePage(w, r, "/playbooks/"+low)
		return nil
	}
	pr := printer(ctx)
	pb, err := c.Store.Playbook(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return notFoundMsg(i18n.M("notfound.playbook", "id", id))
	}
	if err != nil {
		return err
	}
	title, summary, sections := pb.Title, pb.Summary, pb.Sections
	english := pr.Lang().Korean() && pb.Ko == nil
	if pr.Lang().Korean() && pb.Ko != nil {
		// Same anchors in both languages (lint checks), so wizard links
		// and the table of contents land on the same sections.
		title, summary, sections = pb.Ko.Title, pb.Ko.Summary, pb.Ko.Sections
	}
	p := templates.PlaybookPage{Chrome: s.chrome(c, title, "playbooks", ""), ID: pb.ID, Title: title,
		Summary: summary, Signals: pb.Signals, EnglishOnly: english}
	p.Provenance = provenanceView(pr, c, pb.Layer, pb.EditURL, pb.Changed, pb.ChangedFrom, layerPath(pb.Layer, pb.Path))
	if pb.Overrides != nil {
		p.Provenance.Overrides, p.Provenance.OverridesPath = layerLabel(pr, pb.Overrides.Layer), pb.Overrides.Path
	}
	for _, sym := range pb.Symptoms {
		p.Symptoms = append(p.Symptoms, templates.Link{Label: termLabel(pr, c.Taxonomy, library.FacetSymptom, sym), Href: "/terms/symptom/" + sym})
	}
	for _, comp := range pb.Components {
		p.Components = append(p.Components, templates.Link{Label: termLabel(pr, c.Taxonomy, library.FacetComponent, comp), Href: "/terms/component/" + comp})
	}
	// A paste's result links here with the pod it named: the section's
	// commands name it too.
	wl := contextOf(r.URL.Query())
	for _, sec := range sections {
		p.Sections = append(p.Sections, templates.DocSection{ID: sec.ID, Title: sec.Title, HTML: fillHTML(wl, sec.HTML)})
		p.TOC = append(p.TOC, templates.TOCEntry{ID: sec.ID, Title: sec.Title, Level: 2})
		for _, h := range sec.Anchors {
			if h.Level == 3 {
				p.TOC = append(p.TOC, templates.TOCEntry{ID: h.ID, Title: h.Title, Level: 3})
			}
		}
	}
	if len(pb.Symptoms) > 0 {
		p.TriageHref = "/triage?" + url.Values{"symptom": {pb.Symptoms[0]}, "playbook": {pb.ID}}.Encode()
	}
	// Cases: for each section a triage route ends in, the incidents that
	// show that route. Other incidents linking the playbook follow.
	cased := map[string]bool{}
	if c.Triage != nil {
		for _, o := range c.Triage.PlaybookRoutes(id) {
			ins, err := c.Store.IncidentsForRoute(ctx, o.Route, 50)
			if err != nil {
				return err
			}
			cg := templates.CaseGroup{Route: o.Route, Href: "#" + o.Section, Title: headingTitle(pr, pb, o.Section)}
			if cg.Title == "" {
				cg.Title = o.Section
			}
			for _, in := range ins {
				cg.Incidents = append(cg.Incidents, templates.Link{Label: in.ID + " " + pr.PickText(in.Title, in.TitleKo), Href: "/incidents/" + in.ID})
				cased[in.ID] = true
			}
			p.Cases = append(p.Cases, cg)
		}
	}
	ins, err := c.Store.IncidentsForPlaybook(ctx, id, 25)
	if err != nil {
		return err
	}
	for _, in := range ins {
		if !cased[in.ID] {
			p.Incidents = append(p.Incidents, templates.Link{Label: in.ID + " " + pr.PickText(in.Title, in.TitleKo), Href: "/incidents/" + in.ID})
		}
	}
	return render(ctx, w, http.StatusOK, templates.PlaybookView(p))
}
