package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/store"
	"casebook/web/templates"
)

func (s *Server) handleIncident(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	id := chi.URLParam(r, "id")
	ctx := r.Context()
	pr := printer(ctx)
	if up := strings.ToUpper(id); up != id && library.IsIncidentID(up) {
		redirectSamePage(w, r, "/incidents/"+up)
		return nil
	}
	if !library.IsIncidentID(id) {
		return notFoundMsg(i18n.M("notfound.incident_id", "id", id))
	}
	in, err := c.Store.Incident(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return notFoundMsg(i18n.M("notfound.incident", "id", id))
	}
	if err != nil {
		return err
	}
	title, fbTitle := pr.Pick(in.Title, in.TitleKo)
	summary, fbSummary := pr.Pick(in.Summary, in.SummaryKo)
	p := templates.IncidentPage{Chrome: s.chrome(c, in.ID+" "+title, "library", ""), ID: in.ID, Title: title,
		Summary: summary, Organization: in.Organization, OrgHref: filterHref("org", library.Slug(in.Organization)),
		Date: pr.Date(in.Date), SourcePath: "library/" + in.Path, Checks: checkLinks(ctx, c, in.ID), Drills: s.drillLinks(ctx, in.ID),
		EnglishOnlyHead: fbTitle || fbSummary}
	p.Provenance = provenanceView(pr, c, in.Layer, in.EditURL, in.Changed, in.ChangedFrom, layerPath(in.Layer, in.Path))
	p.SourcePath = p.Provenance.Path
	for _, cf := range cardTermFacets {
		ids := in.Terms(cf.Facet)
		if len(ids) == 0 {
			continue
		}
		tl := templates.TermLinks{Facet: cf.Param, Label: facetLabel(pr, cf.Facet)}
		for _, t := range ids {
			tl.Links = append(tl.Links, templates.Link{Label: termLabel(pr, c.Taxonomy, cf.Facet, t), Href: filterHref(cf.Param, t)})
		}
		p.Classification = append(p.Classification, tl)
	}
	sections := in.Sections
	if pr.Lang().Korean() {
		if in.Ko != nil && len(in.Ko.Sections) > 0 {
			sections = in.Ko.Sections
		} else {
			p.EnglishOnlyBody = true
		}
	}
	for _, sec := range sections {
		p.Sections = append(p.Sections, templates.DocSection{ID: sec.ID, Title: sec.Title, HTML: sec.HTML})
	}
	for _, src := range in.Sources {
		p.Sources = append(p.Sources, templates.SourceLink{URL: src.URL, Title: src.Title, Kind: sourceKindLabel(pr, src.Kind),
			Retrieved: pr.Date(src.Retrieved), Secondary: src.Secondary, Quote: src.Quote})
	}
	for _, pb := range in.Playbooks {
		title := pb
		if pbk, err := c.Store.Playbook(ctx, pb); err == nil {
			title = playbookTitle(pr, pbk)
		}
		p.Playbooks = append(p.Playbooks, templates.Link{Label: title, Href: "/playbooks/" + pb})
	}
	similar, err := c.Store.Similar(ctx, id, 6)
	if err != nil {
		return err
	}
	for _, sim := range similar {
		sv := templates.SimilarLink{Link: templates.Link{Label: sim.ID + " " + pr.PickText(sim.Title, sim.TitleKo), Href: "/incidents/" + sim.ID}}
		// The three most specific shared terms say why it is similar.
		for _, sh := range sim.Shared[:min(3, len(sim.Shared))] {
			sv.Shared = append(sv.Shared, termLabel(pr, c.Taxonomy, sh.Facet, sh.ID))
		}
		p.Similar = append(p.Similar, sv)
	}
	return render(ctx, w, http.StatusOK, templates.IncidentView(p))
}
