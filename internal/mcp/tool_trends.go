package mcp

import (
	"context"
	"net/url"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/selection"
	"casebook/internal/trends"
)

// TrendsInput selects the incidents to count and, optionally, one chart.
type TrendsInput struct {
	Filters *Filters `json:"filters,omitempty" jsonschema:"which incidents to count; none counts the whole library. For 'since 2024' list the years: year [2024, 2025, 2026]"`
	Chart   string   `json:"chart,omitempty" jsonschema:"one chart: causes_by_year, domains_by_year, components or factors; empty returns all four"`
	Lang    string   `json:"lang,omitempty"`
}

// TrendsOutput is the numbers of the trends page (/trends) and of
// /api/trends: each count carries query, the library parameters that list
// exactly what it counts (open /?query to see them).
type TrendsOutput struct {
	Incidents     int                    `json:"incidents" jsonschema:"incidents the filters select"`
	CausesByYear  *trends.YearChart      `json:"causes_by_year,omitempty" jsonschema:"incidents per year by cause category; an incident in two categories counts in both"`
	DomainsByYear *trends.YearChart      `json:"domains_by_year,omitempty" jsonschema:"incidents per year by domain"`
	Components    *trends.ComponentChart `json:"components,omitempty" jsonschema:"the components with the most incidents and their place among them in each of the last three years"`
	Factors       *trends.FactorChart    `json:"factors,omitempty" jsonschema:"the contributing factors found at the most organisations"`
	Lang          string                 `json:"lang"`
}

var trendsTool = toolSpec[TrendsInput]{
	name:  "library_trends",
	title: "Count the library by year, cause, domain, component and factor",
	description: "Use to answer questions about trends across incidents: which cause categories or domains grow year by year, " +
		"which components have the most incidents and how their ranking moved over the last three years, which contributing " +
		"factors recur across the most organisations. Takes the same filters as list_incidents (e.g. domain gpu, years 2024-2026).",
	tweak: func(p map[string]*jsonschema.Schema) { enum(p, "chart", append([]string{""}, trends.Charts...)...) },
}

func (t *tools) trends(ctx context.Context, c *content.Content, _ *sdk.CallToolRequest, in TrendsInput) (TrendsOutput, error) {
	lang, err := toolLang(in.Lang)
	if err != nil {
		return TrendsOutput{}, err
	}
	sel, err := parseSelection(c, in.Filters, url.Values{}, selection.Paging{DefaultPerPage: defaultPerPage, MaxPerPage: maxPerPage})
	if err != nil {
		return TrendsOutput{}, err
	}
	rep, err := trends.Compute(ctx, c.Store, c.Taxonomy, sel.Filter)
	if err != nil {
		return TrendsOutput{}, err
	}
	out := TrendsOutput{Incidents: rep.Incidents, Lang: string(lang)}
	all := in.Chart == ""
	if all || in.Chart == "causes_by_year" {
		out.CausesByYear = &rep.CausesByYear
	}
	if all || in.Chart == "domains_by_year" {
		out.DomainsByYear = &rep.DomainsByYear
	}
	if all || in.Chart == "components" {
		out.Components = &rep.Components
	}
	if all || in.Chart == "factors" {
		out.Factors = &rep.Factors
	}
	if !all && out.CausesByYear == nil && out.DomainsByYear == nil && out.Components == nil && out.Factors == nil {
		return TrendsOutput{}, badArg("unknown chart %q: want causes_by_year, domains_by_year, components or factors", in.Chart)
	}
	return out, nil
}
