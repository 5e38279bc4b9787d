// Package export turns the loaded library, or a filtered part of it, into
// data: one JSON document with every incident, its classification, sources
// and section text, or one CSV row per incident. WriteLibrary is the way
// back, writing an export as a library folder that library.Load reads to
// the same incidents; the round-trip test holds the two to each other.
package export

import (
	"context"
	"fmt"

	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/selection"
	"casebook/internal/store"
)

// Format names the layout of the JSON export. A change that renames or
// removes a field gets a new number; adding fields does not.
const Format = "casebook-export/1"

// Library is the JSON export: the taxonomy the incidents are classified by,
// the incidents (newest first) and the playbooks they link to.
type Library struct {
	Format      string `json:"format"`
	LibraryHash string `json:"library_hash"`
	// Filter is the selection the export was made with, as query
	// parameters; empty for the whole library.
	Filter    map[string][]string        `json:"filter"`
	Taxonomy  map[string][]*library.Term `json:"taxonomy"`
	Incidents []Incident                 `json:"incidents"`
	Playbooks []Playbook                 `json:"playbooks"`
}

// Incident is one incident with every classification, including the cause
// categories implied by its causes, and the Markdown of its sections.
type Incident struct {
	ID                  string           `json:"id"`
	Title               string           `json:"title"`
	Summary             string           `json:"summary"`
	Organization        string           `json:"organization"`
	Date                string           `json:"date" jsonschema:"YYYY-MM-DD or YYYY-MM, as written in the source"`
	Year                int              `json:"year"`
	Domains             []string         `json:"domains"`
	Components          []string         `json:"components"`
	Causes              []string         `json:"causes"`
	CauseCategories     []string         `json:"cause_categories"`
	Symptoms            []string         `json:"symptoms"`
	ContributingFactors []string         `json:"contributing_factors"`
	Trigger             string           `json:"trigger,omitempty"`
	Detection           string           `json:"detection,omitempty"`
	Sources             []library.Source `json:"sources"`
	Playbooks           []string         `json:"playbooks"`
	Sections            []Section        `json:"sections"`
	Path                string           `json:"path" jsonschema:"the file in the library folder"`
	URL                 string           `json:"url" jsonschema:"the incident's page, relative to the portal's address"`
	TitleKo             string           `json:"title_ko,omitempty"`
	SummaryKo           string           `json:"summary_ko,omitempty"`
	Kind                string           `json:"kind" jsonschema:"incident, or study for an aggregate of many failures"`
	Routes              []string         `json:"routes"`
	Added               string           `json:"added,omitempty"`
	SectionsKo          []Section        `json:"sections_ko,omitempty" jsonschema:"the Korean body, when the library has one"`
	Layer               string           `json:"layer" jsonschema:"where the incident comes from: public, or a team layer's name"`
}

// Section is one "##" section: its anchor, heading and Markdown body.
type Section struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
}

// Playbook is one playbook with the Markdown of its sections.
type Playbook struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Summary    string    `json:"summary"`
	Symptoms   []string  `json:"symptoms"`
	Components []string  `json:"components"`
	Signals    []string  `json:"signals"`
	Sections   []Section `json:"sections"`
	Path       string    `json:"path"`
	URL        string    `json:"url"`
	TitleKo    string    `json:"title_ko,omitempty"`
	SummaryKo  string    `json:"summary_ko,omitempty"`
	SectionsKo []Section `json:"sections_ko,omitempty"`
}

// Build exports the incidents of c that match f (all of them for an empty
// filter). A filtered export carries only the playbooks its incidents link
// to, so that it still re-imports without dangling links.
func Build(ctx context.Context, c *content.Content, f store.Filter) (*Library, error) {
	ids, err := c.Store.FilteredIDs(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	out := &Library{Format: Format, LibraryHash: c.Hash, Filter: selection.FilterValues(f), Taxonomy: Taxonomy(c.Taxonomy),
		Incidents: make([]Incident, 0, len(ids)), Playbooks: []Playbook{}}
	linked := map[string]bool{}
	for _, id := range ids {
		in, err := c.Store.Incident(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		out.Incidents = append(out.Incidents, FromIncident(c.Taxonomy, in))
		for _, pb := range in.Playbooks {
			linked[pb] = true
		}
	}
	pbs, err := c.Store.Playbooks(ctx)
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	for _, s := range pbs {
		if !f.Empty() && !linked[s.ID] {
			continue
		}
		pb, err := c.Store.Playbook(ctx, s.ID)
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		out.Playbooks = append(out.Playbooks, FromPlaybook(pb))
	}
	return out, nil
}

// Taxonomy lists the terms of every facet, keyed by facet name as in
// /api/taxonomy.
func Taxonomy(tax *library.Taxonomy) map[string][]*library.Term {
	out := map[string][]*library.Term{}
	for _, f := range library.Facets {
		terms := tax.Terms(f)
		if terms == nil {
			terms = []*library.Term{}
		}
		out[string(f)] = terms
	}
	return out
}

// FromIncident converts a loaded incident. Cause categories are not stored
// on the incident; they come from its causes through the taxonomy.
func FromIncident(tax *library.Taxonomy, in *library.Incident) Incident {
	out := Incident{ID: in.ID, Title: in.Title, Summary: in.Summary, Organization: in.Organization, Date: in.Date, Year: in.Year,
		Domains: list(in.Domains), Components: list(in.Components), Causes: list(in.Causes), CauseCategories: CauseCategories(tax, in.Causes),
		Symptoms: list(in.Symptoms), ContributingFactors: list(in.ContributingFactors), Trigger: in.Trigger, Detection: in.Detection,
		Sources: in.Sources, Playbooks: list(in.Playbooks), Sections: sections(in.FullSections()), Path: in.Path, URL: "/incidents/" + in.ID,
		TitleKo: in.TitleKo, SummaryKo: in.SummaryKo, Kind: in.Kind, Routes: list(in.Routes), Added: in.Added, Layer: layerOf(in.Layer)}
	if in.Ko != nil {
		out.SectionsKo = sections(in.Ko.FullSections())
	}
	if out.Sources == nil {
		out.Sources = []library.Source{}
	}
	return out
}

// FromPlaybook converts a loaded playbook.
func FromPlaybook(pb *library.Playbook) Playbook {
	out := Playbook{ID: pb.ID, Title: pb.Title, Summary: pb.Summary, Symptoms: list(pb.Symptoms), Components: list(pb.Components),
		Signals: list(pb.Signals), Sections: sections(pb.Sections), Path: pb.Path, URL: "/playbooks/" + pb.ID}
	if pb.Ko != nil {
		out.TitleKo, out.SummaryKo, out.SectionsKo = pb.Ko.Title, pb.Ko.Summary, sections(pb.Ko.Sections)
	}
	return out
}

// CauseCategories returns the categories of causes, each once, in the order
// the causes name them.
func CauseCategories(tax *library.Taxonomy, causes []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, c := range causes {
		t, ok := tax.Term(library.FacetCause, c)
		if !ok || t.Category == "" || seen[t.Category] {
			continue
		}
		seen[t.Category] = true
		out = append(out, t.Category)
	}
	return out
}

func sections(secs []library.Section) []Section {
	out := make([]Section, 0, len(secs))
	for _, s := range secs {
		out = append(out, Section{ID: s.ID, Title: s.Title, Markdown: s.Markdown})
	}
	return out
}

// list makes nil lists empty so the JSON always has arrays.
func list(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// layerOf is the layer of an incident, the public library when it names none.
func layerOf(name string) string {
	if name == "" {
		return library.PublicLayer
	}
	return name
}
