package mcp

import (
	"net/url"
	"strconv"

	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/selection"
)

// Filters select incidents the way the library page and /api/incidents do:
// any value within one field matches, and every field given must match.
type Filters struct {
	Component     []string `json:"component,omitempty" jsonschema:"component term ids, e.g. nvidia-device-plugin"`
	Cause         []string `json:"cause,omitempty" jsonschema:"cause term ids"`
	CauseCategory []string `json:"cause_category,omitempty" jsonschema:"cause category ids, e.g. capacity"`
	Symptom       []string `json:"symptom,omitempty" jsonschema:"symptom term ids, e.g. pod-pending"`
	Factor        []string `json:"factor,omitempty" jsonschema:"contributing factor term ids"`
	Domain        []string `json:"domain,omitempty" jsonschema:"domain term ids, e.g. gpu"`
	Org           []string `json:"org,omitempty" jsonschema:"organisations, by name as written or by slug"`
	Year          []int    `json:"year,omitempty" jsonschema:"years of the incident date"`
}

// values renders the filters as /api/incidents parameters, so the one
// parser (selection) validates all three front doors alike.
func (f *Filters) values() url.Values {
	q := url.Values{}
	if f == nil {
		return q
	}
	for name, vals := range map[string][]string{"component": f.Component, "cause": f.Cause, "cause_category": f.CauseCategory,
		"symptom": f.Symptom, "factor": f.Factor, "domain": f.Domain, "org": f.Org} {
		q[name] = vals
	}
	for _, y := range f.Year {
		q.Add("year", strconv.Itoa(y))
	}
	return q
}

// parseSelection validates the filters and the other arguments (as
// parameters: sort, page, per_page, q, kind) against the loaded taxonomy
// and organisations, with the messages the web and the export give.
func parseSelection(c *content.Content, f *Filters, args url.Values, p selection.Paging) (selection.Selection, error) {
	q := f.values()
	for k, v := range args {
		q[k] = v
	}
	return selection.Parse(q, c.Taxonomy, c.Orgs, c.LayerNames(), p)
}

// TermRef names a taxonomy term.
type TermRef struct {
	Facet   string `json:"facet"`
	Term    string `json:"term"`
	Label   string `json:"label"`
	LabelKo string `json:"label_ko,omitempty"`
}

// Ref names an incident or playbook with its page.
type Ref struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Date  string `json:"date,omitempty"`
	URL   string `json:"url"`
}

// facetOf parses a facet name, accepting the spellings people use.
func facetOf(s string) (library.Facet, error) {
	f, ok := library.ParseFacet(s)
	if !ok {
		return "", badArg("unknown facet %q: want cause, cause_category, component, symptom, factor or domain", s)
	}
	return f, nil
}
