package library

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Facet names one dimension of the classification. The string values are the
// ones used in URLs (/terms/{facet}/{id}) and query parameters.
type Facet string

// The facets of the taxonomy. CauseCategory groups causes; it is a facet of its
// own so the library can be filtered by a whole category at once.
const (
	FacetCause         Facet = "cause"
	FacetCauseCategory Facet = "cause_category"
	FacetComponent     Facet = "component"
	FacetSymptom       Facet = "symptom"
	FacetFactor        Facet = "factor"
	FacetDomain        Facet = "domain"
)

// Facets lists the taxonomy facets in display order.
var Facets = []Facet{FacetCause, FacetComponent, FacetSymptom, FacetFactor, FacetDomain, FacetCauseCategory}

// yamlKey is the top-level key of each facet in taxonomy.yaml.
var yamlKey = map[Facet]string{
	FacetCauseCategory: "cause_categories",
	FacetCause:         "causes",
	FacetComponent:     "components",
	FacetSymptom:       "symptoms",
	FacetFactor:        "contributing_factors",
	FacetDomain:        "domains",
}

// ParseFacet accepts the URL form of a facet and the spellings people use for
// it ("contributing-factor", "cause-category").
func ParseFacet(s string) (Facet, bool) {
	switch s {
	case "cause", "causes":
		return FacetCause, true
	case "cause_category", "cause-category", "cause_categories", "category":
		return FacetCauseCategory, true
	case "component", "components":
		return FacetComponent, true
	case "symptom", "symptoms":
		return FacetSymptom, true
	case "factor", "factors", "contributing_factor", "contributing-factor", "contributing_factors":
		return FacetFactor, true
	case "domain", "domains":
		return FacetDomain, true
	}
	return "", false
}

// Label is the human name of a facet.
func (f Facet) Label() string {
	switch f {
	case FacetCause:
		return "Cause"
	case FacetCauseCategory:
		return "Cause category"
	case FacetComponent:
		return "Component"
	case FacetSymptom:
		return "Symptom"
	case FacetFactor:
		return "Contributing factor"
	case FacetDomain:
		return "Domain"
	}
	return string(f)
}

// Term is one value of a facet.
type Term struct {
	Facet       Facet    `json:"facet"`
	ID          string   `json:"id"`
	Label       string   `json:"label"`
	LabelKo     string   `json:"label_ko"`
	Aliases     []string `json:"aliases"`
	Description string   `json:"description"`
	// DescriptionKo is the Korean twin of Description, shown on Korean
	// pages; lint requires it wherever Description is set.
	DescriptionKo string `json:"description_ko"`
	Parent        string `json:"parent,omitempty"`
	Category      string `json:"category,omitempty"` // causes only
	// Layer is the layer that defined the term (a later layer may add
	// aliases to it, never redefine it).
	Layer string `json:"layer,omitempty"`
	Line  int    `json:"-"`
	// Path is the taxonomy file that defined the term, as problems name it.
	Path string `json:"-"`
}

// Taxonomy is the controlled vocabulary. Terms keep the order of the file.
type Taxonomy struct {
	terms map[Facet][]*Term
	byID  map[Facet]map[string]*Term
	names []Name
}

// Name is an organisation or a product with the spellings people type for
// it in another script ("리노드" for Linode): a search for a spelling
// searches the name.
type Name struct {
	Name    string   `json:"name" yaml:"name"`
	Aliases []string `json:"aliases" yaml:"aliases"`
}

// Names are the taxonomy's names, in file order.
func (t *Taxonomy) Names() []Name { return t.names }

// Terms returns the terms of a facet in file order.
func (t *Taxonomy) Terms(f Facet) []*Term { return t.terms[f] }

// Term looks a term up by facet and id.
func (t *Taxonomy) Term(f Facet, id string) (*Term, bool) {
	term, ok := t.byID[f][id]
	return term, ok
}

// Label returns the term's label, or the id itself for an unknown term.
func (t *Taxonomy) Label(f Facet, id string) string {
	if term, ok := t.byID[f][id]; ok {
		return term.Label
	}
	return id
}

// IDs returns the sorted ids of a facet, for error messages.
func (t *Taxonomy) IDs(f Facet) []string {
	ids := make([]string, 0, len(t.terms[f]))
	for _, term := range t.terms[f] {
		ids = append(ids, term.ID)
	}
	sort.Strings(ids)
	return ids
}

// Suggest returns the id of the facet nearest to s, for "did you mean".
func (t *Taxonomy) Suggest(f Facet, s string) string {
	return nearest(s, t.IDs(f))
}

type rawTerm struct {
	ID            string   `yaml:"id"`
	Label         string   `yaml:"label"`
	LabelKo       string   `yaml:"label_ko"`
	Aliases       []string `yaml:"aliases"`
	Description   string   `yaml:"description"`
	DescriptionKo string   `yaml:"description_ko"`
	Parent        string   `yaml:"parent"`
	Category      string   `yaml:"category"`
}

// ParseTaxonomy parses taxonomy.yaml. Problems name the line of the offending
// term; a taxonomy that cannot be parsed at all is returned as an error
// because nothing else can be validated without it, and as the one problem
// so lint prints it as path:line.
func ParseTaxonomy(path string, data []byte) (*Taxonomy, []Problem, error) {
	return parseTaxonomy(nil, path, "", data)
}

// clone copies the taxonomy's lists and maps; terms are shared until one
// is changed (copy on write).
func (t *Taxonomy) clone() *Taxonomy {
	c := &Taxonomy{terms: map[Facet][]*Term{}, byID: map[Facet]map[string]*Term{}, names: append([]Name(nil), t.names...)}
	for f, ts := range t.terms {
		c.terms[f] = append([]*Term(nil), ts...)
	}
	for f, m := range t.byID {
		c.byID[f] = make(map[string]*Term, len(m))
		for k, v := range m {
			c.byID[f][k] = v
		}
	}
	return c
}

// parseNames reads the names list: each a name with at least one alias.
func parseNames(val *yaml.Node, add func(int, string, ...any)) []Name {
	if val.Kind != yaml.SequenceNode {
		add(val.Line, "names must be a list of names with their aliases")
		return nil
	}
	var out []Name
	for _, n := range val.Content {
		var nm Name
		if err := n.Decode(&nm); err != nil {
			add(n.Line, "names: %v", yamlErr(err, 0))
			continue
		}
		if strings.TrimSpace(nm.Name) == "" || len(nm.Aliases) == 0 {
			add(n.Line, "a name needs name and aliases")
			continue
		}
		out = append(out, nm)
	}
	return out
}

// termKeys are the fields a later layer may give a base term.
var termKeys = map[string]bool{"id": true, "aliases": true}

func parseTaxonomy(base *Taxonomy, path, layer string, data []byte) (*Taxonomy, []Problem, error) {
	if err := CheckYAML(data); err != nil {
		p := BoundProblem(path, err)
		return nil, []Problem{p}, errors.New(p.String())
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p := yamlProblem(path, err, 0, "malformed YAML: ")
		return nil, []Problem{p}, errors.New(p.String())
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		p := Problem{Path: path, Line: 1, Msg: "taxonomy must be a mapping of facet lists"}
		return nil, []Problem{p}, errors.New(p.String())
	}
	root := doc.Content[0]
	t := &Taxonomy{terms: map[Facet][]*Term{}, byID: map[Facet]map[string]*Term{}}
	if base != nil {
		t = base.clone()
	}
	var problems []Problem
	add := func(line int, format string, args ...any) {
		problems = append(problems, Problem{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	known := map[string]Facet{}
	for f, k := range yamlKey {
		known[k] = f
	}
	var added []*Term // the terms this file defines, for the checks below
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		if key.Value == "names" {
			t.names = append(t.names, parseNames(val, add)...)
			continue
		}
		f, ok := known[key.Value]
		if !ok {
			add(key.Line, "unknown taxonomy list %q (want one of cause_categories, causes, components, symptoms, contributing_factors, domains, names)", key.Value)
			continue
		}
		if val.Kind != yaml.SequenceNode {
			add(val.Line, "%s must be a list of terms", key.Value)
			continue
		}
		if t.byID[f] == nil {
			t.byID[f] = map[string]*Term{}
		}
		for _, n := range val.Content {
			var r rawTerm
			if err := n.Decode(&r); err != nil {
				add(n.Line, "%s: %v", key.Value, yamlErr(err, 0))
				continue
			}
			term := &Term{Facet: f, ID: r.ID, Label: r.Label, LabelKo: r.LabelKo, Aliases: r.Aliases,
				Description: r.Description, DescriptionKo: r.DescriptionKo, Parent: r.Parent, Category: r.Category, Layer: layer, Line: n.Line, Path: path}
			prev := t.byID[f][term.ID]
			switch {
			case !idPattern.MatchString(term.ID):
				add(n.Line, "term id %q must be lower-case words joined by hyphens", term.ID)
				continue
			case prev != nil && base != nil && base.byID[f][term.ID] != nil:
				// A base term: a layer adds aliases and nothing else.
				if extra := redefined(n); len(extra) > 0 {
					add(n.Line, "%s %q is defined in %s:%d; a layer may add aliases to a term, never redefine it (remove %s)",
						f, term.ID, prev.Path, prev.Line, strings.Join(extra, ", "))
				}
				t.addAliases(prev, term.Aliases)
				continue
			case prev != nil:
				add(n.Line, "duplicate %s id %q (first on line %d)", f, term.ID, prev.Line)
				continue
			case term.Label == "":
				add(n.Line, "%s %q has no label", f, term.ID)
			case term.LabelKo == "":
				add(n.Line, "%s %q has no label_ko", f, term.ID)
			}
			if term.Description != "" && term.DescriptionKo == "" {
				add(n.Line, "%s %q has a description but no description_ko", f, term.ID)
			}
			t.terms[f] = append(t.terms[f], term)
			t.byID[f][term.ID] = term
			added = append(added, term)
		}
	}
	for _, f := range Facets {
		if t.byID[f] == nil {
			t.byID[f] = map[string]*Term{}
		}
	}
	for _, term := range added {
		f := term.Facet
		if term.Parent != "" && t.byID[f][term.Parent] == nil {
			add(term.Line, "%s %q: parent %q is not a %s%s", f, term.ID, term.Parent, f, didYouMean(term.Parent, t.IDs(f)))
		}
		if f != FacetCause {
			continue
		}
		if term.Category == "" {
			add(term.Line, "cause %q has no category", term.ID)
		} else if t.byID[FacetCauseCategory][term.Category] == nil {
			add(term.Line, "cause %q: unknown category %q%s", term.ID, term.Category, didYouMean(term.Category, t.IDs(FacetCauseCategory)))
		}
	}
	return t, problems, nil
}

// redefined lists the fields of a term mapping beyond id and aliases.
func redefined(n *yaml.Node) []string {
	var out []string
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !termKeys[k] {
			out = append(out, k)
		}
	}
	return out
}

// addAliases gives a base term a later layer's aliases, on a copy so the
// base taxonomy keeps its own.
func (t *Taxonomy) addAliases(prev *Term, aliases []string) {
	var fresh []string
	for _, a := range aliases {
		if a = strings.TrimSpace(a); a != "" && !contains(prev.Aliases, a) && !contains(fresh, a) {
			fresh = append(fresh, a)
		}
	}
	if len(fresh) == 0 {
		return
	}
	cp := *prev
	cp.Aliases = append(append([]string(nil), prev.Aliases...), fresh...)
	t.byID[prev.Facet][prev.ID] = &cp
	for i, x := range t.terms[prev.Facet] {
		if x == prev {
			t.terms[prev.Facet][i] = &cp
		}
	}
}
