package mcp

import (
	"context"
	"net/url"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/selection"
	"casebook/internal/store"
)

// ListInput selects and pages incidents.
type ListInput struct {
	Filters *Filters `json:"filters,omitempty" jsonschema:"which incidents; none lists the whole library"`
	Sort    string   `json:"sort,omitempty" jsonschema:"newest (the default), oldest or title"`
	Page    int      `json:"page,omitempty" jsonschema:"1-based page; default 1"`
	PerPage int      `json:"per_page,omitempty" jsonschema:"incidents per page; default 20"`
	Facets  bool     `json:"facets,omitempty" jsonschema:"also count the terms of each facet among the matches, to see how to narrow further"`
	Lang    string   `json:"lang,omitempty"`
}

// ListOutput is one page of incidents.
type ListOutput struct {
	Total     int                           `json:"total"`
	Page      int                           `json:"page"`
	PerPage   int                           `json:"per_page"`
	Pages     int                           `json:"pages"`
	Incidents []IncidentSummary             `json:"incidents"`
	Facets    map[string][]store.FacetCount `json:"facets,omitempty" jsonschema:"per facet, how many matching incidents carry each term (only when asked)"`
	Lang      string                        `json:"lang" jsonschema:"echoes the request; incidents carry title and title_ko, summary and summary_ko"`
}

// IncidentSummary is an incident without its write-up.
type IncidentSummary struct {
	ID                  string   `json:"id"`
	Title               string   `json:"title"`
	Summary             string   `json:"summary"`
	Organization        string   `json:"organization"`
	Date                string   `json:"date"`
	URL                 string   `json:"url"`
	Domains             []string `json:"domains"`
	Components          []string `json:"components"`
	Causes              []string `json:"causes"`
	Symptoms            []string `json:"symptoms"`
	ContributingFactors []string `json:"contributing_factors"`
	TitleKo             string   `json:"title_ko,omitempty"`
	SummaryKo           string   `json:"summary_ko,omitempty"`
}

const (
	defaultPerPage = 20
	maxPerPage     = 50
)

var listTool = toolSpec[ListInput]{
	name:  "list_incidents",
	title: "List incidents by filters",
	description: "Use to list incidents by classification: component, cause, cause category, symptom, contributing factor, domain, " +
		"organisation, year (ids from vocab or get_term). Newest first, paged; set facets to see which terms the matches carry. " +
		"For free text use search_incidents.",
	tweak: func(p map[string]*jsonschema.Schema) {
		enum(p, "sort", store.SortNewest, store.SortOldest, store.SortTitle)
		between(p, "page", 1, 100000)
		between(p, "per_page", 1, maxPerPage)
	},
}

func (t *tools) list(ctx context.Context, c *content.Content, _ *sdk.CallToolRequest, in ListInput) (ListOutput, error) {
	lang, err := toolLang(in.Lang)
	if err != nil {
		return ListOutput{}, err
	}
	args := url.Values{"sort": {in.Sort}}
	if in.Page != 0 {
		args.Set("page", strconv.Itoa(in.Page))
	}
	if in.PerPage != 0 {
		args.Set("per_page", strconv.Itoa(in.PerPage))
	}
	sel, err := parseSelection(c, in.Filters, args, selection.Paging{DefaultPerPage: defaultPerPage, MaxPerPage: maxPerPage})
	if err != nil {
		return ListOutput{}, err
	}
	f, page, per := sel.Filter, sel.Page, sel.PerPage
	items, total, err := c.Store.ListIncidents(ctx, f, sel.Sort, page, per)
	if err != nil {
		return ListOutput{}, err
	}
	pages := (total + per - 1) / per
	if total > 0 && page > pages {
		return ListOutput{}, badArg("page %d is past the last page (%d of %d incidents at %d a page)", page, pages, total, per)
	}
	out := ListOutput{Total: total, Page: page, PerPage: per, Pages: pages, Incidents: make([]IncidentSummary, 0, len(items)), Lang: string(lang)}
	for _, it := range items {
		out.Incidents = append(out.Incidents, IncidentSummary{ID: it.ID, Title: it.Title, Summary: it.Summary, TitleKo: it.TitleKo, SummaryKo: it.SummaryKo, Organization: it.Organization,
			Date: it.Date, URL: "/incidents/" + it.ID, Domains: it.Domains, Components: it.Components, Causes: it.Causes,
			Symptoms: it.Symptoms, ContributingFactors: it.ContributingFactors})
	}
	if in.Facets {
		if out.Facets, err = c.Store.FacetCounts(ctx, f, c.Taxonomy); err != nil {
			return ListOutput{}, err
		}
	}
	return out, nil
}
