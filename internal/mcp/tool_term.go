package mcp

import (
	"context"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/store"
)

// TermInput names a taxonomy term.
type TermInput struct {
	Facet string `json:"facet,omitempty" jsonschema:"cause, cause_category, component, symptom, factor or domain; may be left out when the id belongs to one facet only"`
	ID    string `json:"id" jsonschema:"term id such as nvidia-device-plugin (vocab finds ids from words)"`
	Lang  string `json:"lang,omitempty"`
}

// TermOutput is a term, its place in the taxonomy, and what it co-occurs
// with across the library.
type TermOutput struct {
	Facet         string    `json:"facet"`
	ID            string    `json:"id"`
	Label         string    `json:"label"`
	LabelKo       string    `json:"label_ko,omitempty"`
	Aliases       []string  `json:"aliases,omitempty"`
	Description   string    `json:"description,omitempty"`
	DescriptionKo string    `json:"description_ko,omitempty"`
	Parent        string    `json:"parent,omitempty"`
	Category      string    `json:"category,omitempty" jsonschema:"the cause category of a cause"`
	Narrower      []TermRef `json:"narrower,omitempty" jsonschema:"terms whose parent (or, for a cause category, whose category) this is"`
	URL           string    `json:"url"`
	IncidentCount int       `json:"incident_count"`
	CoOccurring   []CoTerm  `json:"co_occurring" jsonschema:"terms carried by the same incidents, most shared first, with the number of incidents shared"`
	Recent        []Ref     `json:"recent_incidents" jsonschema:"the newest incidents with the term"`
	Lang          string    `json:"lang" jsonschema:"the language of the recent incidents' titles; the term carries label and label_ko"`
}

// CoTerm is a term that shares incidents with another.
type CoTerm struct {
	Facet string `json:"facet"`
	Term  string `json:"term"`
	Label string `json:"label"`
	Count int    `json:"count"`
}

const (
	maxCoTerms     = 15
	maxRecentTerms = 10
)

var termTool = toolSpec[TermInput]{
	name:  "get_term",
	title: "Get a taxonomy term",
	description: "Use to understand one taxonomy term (a cause, component, symptom, contributing factor, domain or cause category): " +
		"its labels in English and Korean, description, narrower terms, how many incidents carry it, the terms that co-occur " +
		"with it most (with counts) and its newest incidents. Good for 'what usually goes with X' questions.",
	tweak: func(p map[string]*jsonschema.Schema) {
		enum(p, "facet", "cause", "cause_category", "component", "symptom", "factor", "domain")
	},
}

func (t *tools) term(ctx context.Context, c *content.Content, _ *sdk.CallToolRequest, in TermInput) (TermOutput, error) {
	lang, err := toolLang(in.Lang)
	if err != nil {
		return TermOutput{}, err
	}
	pr := printerFor(lang)
	term, err := findTerm(c.Taxonomy, in.Facet, strings.TrimSpace(in.ID))
	if err != nil {
		return TermOutput{}, err
	}
	f := term.Facet
	out := TermOutput{Facet: string(f), ID: term.ID, Label: term.Label, LabelKo: term.LabelKo, Aliases: term.Aliases,
		Description: term.Description, DescriptionKo: term.DescriptionKo, Parent: term.Parent, Category: term.Category, URL: "/terms/" + string(f) + "/" + term.ID,
		CoOccurring: []CoTerm{}, Recent: []Ref{}, Lang: string(lang)}
	for _, other := range c.Taxonomy.Terms(f) {
		if other.Parent == term.ID {
			out.Narrower = append(out.Narrower, TermRef{Facet: string(f), Term: other.ID, Label: other.Label})
		}
	}
	if f == library.FacetCauseCategory {
		for _, cause := range c.Taxonomy.Terms(library.FacetCause) {
			if cause.Category == term.ID {
				out.Narrower = append(out.Narrower, TermRef{Facet: string(library.FacetCause), Term: cause.ID, Label: cause.Label})
			}
		}
	}
	items, total, err := c.Store.ListIncidents(ctx, store.Filter{Terms: map[library.Facet][]string{f: {term.ID}}}, store.SortNewest, 1, maxRecentTerms)
	if err != nil {
		return TermOutput{}, err
	}
	out.IncidentCount = total
	for _, it := range items {
		out.Recent = append(out.Recent, Ref{ID: it.ID, Title: pr.PickText(it.Title, it.TitleKo), Date: it.Date, URL: "/incidents/" + it.ID})
	}
	co, err := c.Store.CoOccurring(ctx, f, term.ID, maxCoTerms)
	if err != nil {
		return TermOutput{}, err
	}
	for _, ct := range co {
		out.CoOccurring = append(out.CoOccurring, CoTerm{Facet: string(ct.Facet), Term: ct.Term, Label: c.Taxonomy.Label(ct.Facet, ct.Term), Count: ct.Count})
	}
	return out, nil
}

// findTerm looks a term up by id, in one facet or, without one, in the
// facet that has it. A miss suggests what the caller may have meant.
func findTerm(tax *library.Taxonomy, facet, id string) (*library.Term, error) {
	if id == "" {
		return nil, badArg("id is empty: give a term id such as nvidia-device-plugin (vocab finds ids from words)")
	}
	facets := library.Facets
	if facet != "" {
		f, err := facetOf(facet)
		if err != nil {
			return nil, err
		}
		facets = []library.Facet{f}
	}
	var found []*library.Term
	for _, f := range facets {
		if t, ok := tax.Term(f, id); ok {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, termMiss(tax, facets, id)
	}
	var where []string
	for _, t := range found {
		where = append(where, string(t.Facet))
	}
	return nil, badArg("%q is a term of several facets (%s); say which in facet", id, strings.Join(where, ", "))
}

func termMiss(tax *library.Taxonomy, facets []library.Facet, id string) error {
	var ids []string
	for _, f := range facets {
		ids = append(ids, tax.IDs(f)...)
	}
	// A near id is most likely a typo of it; only then read the id as words
	// ("device plugin") that may name a term by label or alias.
	if n := library.Nearest(id, ids); n != "" {
		return badArg("no term %q (did you mean %q?)", id, n)
	}
	for _, s := range search.Suggest(tax, id) {
		if slices.Contains(facets, s.Facet) {
			return badArg("no term %q; the words name %s %q (%s)", id, s.Facet, s.Term, s.Label)
		}
	}
	return badArg("no term %q; use vocab to find term ids from words", id)
}
