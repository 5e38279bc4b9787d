package web

import (
	"context"
	"net/http"

	"casebook/internal/i18n"
	"casebook/internal/library"
	"casebook/internal/store"
	"casebook/web/templates"
)

// printer is the request's language (set by withLang).
func printer(ctx context.Context) *i18n.Printer { return i18n.From(ctx) }

// termLabel is a taxonomy term's label in the page's language; a term
// without a Korean label shows its English one.
func termLabel(p *i18n.Printer, tax *library.Taxonomy, f library.Facet, id string) string {
	if p.Lang().Korean() {
		if t, ok := tax.Term(f, id); ok && t.LabelKo != "" {
			return t.LabelKo
		}
	}
	return tax.Label(f, id)
}

// termOwnLabel is termLabel for a term already in hand.
func termOwnLabel(p *i18n.Printer, t *library.Term) string {
	return p.PickText(t.Label, t.LabelKo)
}

// facetLabel names a facet in the page's language.
func facetLabel(p *i18n.Printer, f library.Facet) string {
	switch f {
	case library.FacetCause:
		return p.T("facet.cause")
	case library.FacetCauseCategory:
		return p.T("facet.cause_category")
	case library.FacetComponent:
		return p.T("facet.component")
	case library.FacetSymptom:
		return p.T("facet.symptom")
	case library.FacetFactor:
		return p.T("facet.factor")
	case library.FacetDomain:
		return p.T("facet.domain")
	}
	return string(f)
}

// sectionLabel names an incident section by its anchor in the page's
// language (search fragments, the write-up); other anchors are returned
// as they are.
func sectionLabel(p *i18n.Printer, anchor string) string {
	switch anchor {
	case "symptom":
		return p.T("section.symptom")
	case "trigger":
		return p.T("section.trigger")
	case "detection":
		return p.T("section.detection")
	case "response":
		return p.T("section.response")
	case "follow-ups":
		return p.T("section.follow_ups")
	case "lessons":
		return p.T("section.lessons")
	case "title", "title_ko":
		return p.T("section.title")
	case "summary", "summary_ko":
		return p.T("section.summary")
	case "signals":
		return p.T("section.signals")
	case "sources":
		return p.T("section.sources")
	case "terms":
		return p.T("section.terms")
	// The sections every playbook has.
	case "detect":
		return p.T("section.detect")
	case "scope":
		return p.T("section.scope")
	case "mitigate":
		return p.T("section.mitigate")
	case "root-cause":
		return p.T("section.root_cause")
	case "verify":
		return p.T("section.verify")
	case "record":
		return p.T("section.record")
	}
	return anchor
}

// playbookCard is a playbook in a list, in the page's language: the Korean
// title and summary when the playbook has a Korean twin.
func playbookCard(p *i18n.Printer, pb store.PlaybookSummary) templates.CaseCard {
	title, fbT := p.Pick(pb.Title, pb.TitleKo)
	summary, fbS := p.Pick(pb.Summary, pb.SummaryKo)
	card := templates.CaseCard{ID: pb.ID, Title: title, Summary: summary, Href: "/playbooks/" + pb.ID, EnglishOnly: fbT || fbS}
	if pb.Layer != "" && pb.Layer != library.PublicLayer {
		card.Layer, card.LayerLabel = pb.Layer, layerLabel(p, pb.Layer)
	}
	return card
}

// playbookTitle is a playbook's title in the page's language.
func playbookTitle(p *i18n.Printer, pb *library.Playbook) string {
	if pb.Ko != nil {
		return p.PickText(pb.Title, pb.Ko.Title)
	}
	return pb.Title
}

// sourceKindLabel names a source's kind (postmortem, status-page, ...).
func sourceKindLabel(p *i18n.Printer, kind string) string {
	switch kind {
	case "postmortem":
		return p.T("source_kind.postmortem")
	case "status-page":
		return p.T("source_kind.status_page")
	case "talk":
		return p.T("source_kind.talk")
	case "paper":
		return p.T("source_kind.paper")
	case "blog":
		return p.T("source_kind.blog")
	case "issue":
		return p.T("source_kind.issue")
	case "article":
		return p.T("source_kind.article")
	}
	return kind
}

// headingTitle is the title of a playbook heading by its anchor in the
// page's language; both languages share the anchors.
func headingTitle(p *i18n.Printer, pb *library.Playbook, anchor string) string {
	if p.Lang().Korean() && pb.Ko != nil {
		if t := (&library.Playbook{Sections: pb.Ko.Sections}).HeadingTitle(anchor); t != "" {
			return t
		}
	}
	return pb.HeadingTitle(anchor)
}

// statusTitle names an error page's status in the page's language; the
// message under it is the error's own, which names values as typed.
func statusTitle(p *i18n.Printer, status int) string {
	switch status {
	case http.StatusBadRequest:
		return p.T("status.bad_request")
	case http.StatusUnauthorized:
		return p.T("status.unauthorized")
	case http.StatusForbidden:
		return p.T("status.forbidden")
	case http.StatusNotFound:
		return p.T("status.not_found")
	case http.StatusMethodNotAllowed:
		return p.T("status.method_not_allowed")
	case http.StatusRequestEntityTooLarge:
		return p.T("status.too_large")
	case http.StatusUnprocessableEntity:
		return p.T("status.unprocessable")
	case http.StatusTooManyRequests:
		return p.T("status.too_many_requests")
	case http.StatusServiceUnavailable:
		return p.T("status.unavailable")
	case http.StatusGatewayTimeout:
		return p.T("status.timeout")
	}
	if status >= 500 {
		return p.T("status.server_error")
	}
	return http.StatusText(status)
}
