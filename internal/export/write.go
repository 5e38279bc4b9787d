package export

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"casebook/internal/library"
)

// WriteLibrary writes an export as a library folder under dir: taxonomy.yaml,
// incidents/*.md and playbooks/*.md in the format library.Load reads. It is
// the inverse of Build: the round-trip test loads the folder and expects the
// incidents it exported. Triage trees are not part of an export, so the
// folder has none.
func WriteLibrary(dir string, lib *Library) error {
	for _, sub := range []string{"incidents", "playbooks"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return fmt.Errorf("export: write library: %w", err)
		}
	}
	tax, err := taxonomyYAML(lib.Taxonomy)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "taxonomy.yaml"), tax, 0o644); err != nil {
		return fmt.Errorf("export: write taxonomy: %w", err)
	}
	for _, in := range lib.Incidents {
		name, err := incidentFile(in)
		if err != nil {
			return err
		}
		src, err := incidentMarkdown(in)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "incidents", name), src, 0o644); err != nil {
			return fmt.Errorf("export: write %s: %w", in.ID, err)
		}
		if len(in.SectionsKo) > 0 {
			src, err := document(struct {
				ID string `yaml:"id"`
			}{in.ID}, in.SectionsKo, in.ID)
			if err != nil {
				return err
			}
			ko := strings.TrimSuffix(name, ".md") + ".ko.md"
			if err := os.WriteFile(filepath.Join(dir, "incidents", ko), src, 0o644); err != nil {
				return fmt.Errorf("export: write %s: %w", ko, err)
			}
		}
	}
	for _, pb := range lib.Playbooks {
		if !playbookID.MatchString(pb.ID) {
			return fmt.Errorf("export: playbook id %q is not a valid file name", pb.ID)
		}
		src, err := playbookMarkdown(pb)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "playbooks", pb.ID+".md"), src, 0o644); err != nil {
			return fmt.Errorf("export: write playbook %s: %w", pb.ID, err)
		}
		if len(pb.SectionsKo) > 0 {
			src, err := document(playbookKoFront{ID: pb.ID, Title: pb.TitleKo, Summary: pb.SummaryKo}, pb.SectionsKo, pb.ID)
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "playbooks", pb.ID+".ko.md"), src, 0o644); err != nil {
				return fmt.Errorf("export: write playbook %s: %w", pb.ID+".ko.md", err)
			}
		}
	}
	return nil
}

// Ids become file names, so they are checked against the library's own
// patterns before use: an export is input like any other.
var (
	incidentName = regexp.MustCompile(`^[A-Z][A-Z0-9]{1,9}-\d{4,6}(-[a-z0-9]+)*\.md$`)
	playbookID   = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// incidentFile keeps the file name the incident had, when it is a valid one
// for its id, so a re-imported library diffs cleanly against the original.
func incidentFile(in Incident) (string, error) {
	if !library.IsIncidentID(in.ID) {
		return "", fmt.Errorf("export: incident id %q must look like IL-0042 (or a team layer's ACME-0042)", in.ID)
	}
	if base := path.Base(in.Path); incidentName.MatchString(base) && strings.HasPrefix(base, in.ID) {
		return base, nil
	}
	slug := library.Slug(in.Title)
	if len(slug) > 60 {
		slug = strings.TrimRight(slug[:60], "-")
	}
	if slug == "" || !playbookID.MatchString(slug) {
		return in.ID + ".md", nil
	}
	return in.ID + "-" + slug + ".md", nil
}

// incidentFront is the front matter of an incident file, fields in the
// order library/README.md shows them.
type incidentFront struct {
	ID                  string       `yaml:"id"`
	Title               string       `yaml:"title"`
	Summary             string       `yaml:"summary"`
	Organization        string       `yaml:"organization"`
	Date                string       `yaml:"date"`
	Domains             []string     `yaml:"domains,flow"`
	Components          []string     `yaml:"components,flow"`
	Causes              []string     `yaml:"causes,flow"`
	Symptoms            []string     `yaml:"symptoms,flow"`
	ContributingFactors []string     `yaml:"contributing_factors,omitempty,flow"`
	Trigger             string       `yaml:"trigger,omitempty"`
	Detection           string       `yaml:"detection,omitempty"`
	Sources             []sourceYAML `yaml:"sources"`
	Playbooks           []string     `yaml:"playbooks,omitempty,flow"`
	TitleKo             string       `yaml:"title_ko"`
	SummaryKo           string       `yaml:"summary_ko"`
	Kind                string       `yaml:"kind,omitempty"`
	Routes              []string     `yaml:"routes,omitempty,flow"`
	Added               string       `yaml:"added,omitempty"`
}

type sourceYAML struct {
	URL       string `yaml:"url"`
	Title     string `yaml:"title"`
	Kind      string `yaml:"kind"`
	Retrieved string `yaml:"retrieved"`
	Secondary bool   `yaml:"secondary,omitempty"`
	Quote     string `yaml:"quote,omitempty"`
}

type playbookKoFront struct {
	ID      string `yaml:"id"`
	Title   string `yaml:"title"`
	Summary string `yaml:"summary"`
}

func incidentMarkdown(in Incident) ([]byte, error) {
	front := incidentFront{ID: in.ID, Title: in.Title, Summary: in.Summary, Organization: in.Organization, Date: in.Date,
		Domains: in.Domains, Components: in.Components, Causes: in.Causes, Symptoms: in.Symptoms,
		ContributingFactors: in.ContributingFactors, Trigger: in.Trigger, Detection: in.Detection, Playbooks: in.Playbooks,
		TitleKo: in.TitleKo, SummaryKo: in.SummaryKo, Kind: in.Kind, Routes: in.Routes, Added: in.Added}
	if front.Kind == library.KindIncident {
		front.Kind = "" // the default is not written
	}
	for _, s := range in.Sources {
		front.Sources = append(front.Sources, sourceYAML(s))
	}
	return document(front, in.Sections, in.ID)
}

type playbookFront struct {
	ID         string   `yaml:"id"`
	Title      string   `yaml:"title"`
	Summary    string   `yaml:"summary"`
	Symptoms   []string `yaml:"symptoms,flow"`
	Components []string `yaml:"components,omitempty,flow"`
	Signals    []string `yaml:"signals,omitempty"`
}

func playbookMarkdown(pb Playbook) ([]byte, error) {
	return document(playbookFront{ID: pb.ID, Title: pb.Title, Summary: pb.Summary, Symptoms: pb.Symptoms,
		Components: pb.Components, Signals: pb.Signals}, pb.Sections, pb.ID)
}

// document writes front matter and "##" sections. The heading is written as
// it was in the source (Title keeps its inline Markdown), so the anchors
// come out the same when the file is parsed again.
func document(front any, secs []Section, id string) ([]byte, error) {
	fm, err := yaml.Marshal(front)
	if err != nil {
		return nil, fmt.Errorf("export: front matter of %s: %w", id, err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(fm)
	b.WriteString("---\n")
	for _, s := range secs {
		if strings.ContainsAny(s.Title, "\r\n") {
			return nil, fmt.Errorf("export: %s: section title %q spans lines", id, s.Title)
		}
		// A heading whose anchor is not its slug (a Korean heading that
		// keeps the English anchor) carries the anchor explicitly.
		if s.ID != "" && s.ID != library.Slug(s.Title) && !koIncidentHeading(s) {
			fmt.Fprintf(&b, "\n## %s {#%s}\n", s.Title, s.ID)
		} else {
			fmt.Fprintf(&b, "\n## %s\n", s.Title)
		}
		if md := strings.TrimSpace(s.Markdown); md != "" {
			b.WriteString(md)
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// taxonomyKeys are the facets in the order taxonomy.yaml lists them, with
// their top-level keys.
var taxonomyKeys = []struct {
	facet library.Facet
	key   string
}{
	{library.FacetCauseCategory, "cause_categories"},
	{library.FacetCause, "causes"},
	{library.FacetComponent, "components"},
	{library.FacetSymptom, "symptoms"},
	{library.FacetFactor, "contributing_factors"},
	{library.FacetDomain, "domains"},
}

type termYAML struct {
	ID            string   `yaml:"id"`
	Label         string   `yaml:"label"`
	LabelKo       string   `yaml:"label_ko,omitempty"`
	Aliases       []string `yaml:"aliases,omitempty,flow"`
	Description   string   `yaml:"description,omitempty"`
	DescriptionKo string   `yaml:"description_ko,omitempty"`
	Parent        string   `yaml:"parent,omitempty"`
	Category      string   `yaml:"category,omitempty"`
}

// taxonomyYAML writes the taxonomy as a mapping of facet lists. A yaml.Node
// keeps the keys in file order, which a Go map would not.
func taxonomyYAML(tax map[string][]*library.Term) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range taxonomyKeys {
		terms := make([]termYAML, 0, len(tax[string(k.facet)]))
		for _, t := range tax[string(k.facet)] {
			terms = append(terms, termYAML{ID: t.ID, Label: t.Label, LabelKo: t.LabelKo, Aliases: t.Aliases,
				Description: t.Description, DescriptionKo: t.DescriptionKo, Parent: t.Parent, Category: t.Category})
		}
		var val yaml.Node
		if err := val.Encode(terms); err != nil {
			return nil, fmt.Errorf("export: taxonomy %s: %w", k.key, err)
		}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k.key}, &val)
	}
	out, err := yaml.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("export: taxonomy: %w", err)
	}
	return out, nil
}

// koIncidentHeading reports a Korean incident heading, whose anchor comes
// from its fixed position, not from an attribute.
func koIncidentHeading(s Section) bool {
	i := slices.Index(library.IncidentSectionsKo, s.Title)
	return i >= 0 && library.Slug(library.IncidentSections[i]) == s.ID
}
