package library

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	idPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	// incidentPattern is IL- and four digits, or five or six digits without
	// a leading zero from IL-10000 on, so each number has one spelling
	// (IL-0042, never IL-00042) and a library can grow past 9,999 incidents.
	incidentPattern = regexp.MustCompile(`^IL-(\d{4}|[1-9]\d{4,5})$`)
	datePattern     = regexp.MustCompile(`^(\d{4})-(\d{2})(?:-(\d{2}))?$`)
)

// anyIncidentPattern is the id of an incident of any layer: the public
// IL-0042 or a team's ACME-0042.
var anyIncidentPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]{1,9}-(\d{4}|[1-9]\d{4,5})$`)

// IsIncidentID reports whether s is a well-formed incident id of any layer
// (IL-0042, ACME-0007).
func IsIncidentID(s string) bool { return anyIncidentPattern.MatchString(s) }

// front reads the fields of a front-matter mapping and records problems with
// the file line of each field. Decoding is field by field so one bad field
// names its own line instead of failing the whole file.
type front struct {
	path     string
	offset   int // added to yaml.Node lines to get file lines
	fields   map[string]*yaml.Node
	keyLine  map[string]int
	problems []Problem
}

func newFront(path string, m *yaml.Node, offset int, allowed []string) *front {
	f := &front{path: path, offset: offset, fields: map[string]*yaml.Node{}, keyLine: map[string]int{}}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch {
		case !ok[k.Value]:
			f.addf(k.Line, "unknown field %q%s", k.Value, didYouMean(k.Value, allowed))
		case f.fields[k.Value] != nil:
			f.addf(k.Line, "field %q appears twice (first on line %d)", k.Value, f.keyLine[k.Value])
		default:
			f.fields[k.Value], f.keyLine[k.Value] = v, k.Line+offset
		}
	}
	return f
}

// addf records a problem at a yaml.Node line (converted to a file line).
func (f *front) addf(nodeLine int, format string, args ...any) {
	f.problems = append(f.problems, Problem{Path: f.path, Line: nodeLine + f.offset, Msg: fmt.Sprintf(format, args...)})
}

// line returns the file line of a field, or of the front matter's start.
func (f *front) line(name string) int {
	if l, ok := f.keyLine[name]; ok {
		return l
	}
	return f.offset
}

func (f *front) str(name string, required bool) string {
	n := f.fields[name]
	if n == nil {
		if required {
			f.problems = append(f.problems, Problem{Path: f.path, Line: f.offset, Msg: fmt.Sprintf("missing required field %q", name)})
		}
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		f.addf(n.Line, "field %q must be text", name)
		return ""
	}
	v := strings.TrimSpace(n.Value)
	if isTodo(v) {
		return v // todoProblems reports it
	}
	if v == "" && required {
		f.addf(n.Line, "field %q is empty", name)
	}
	return v
}

func (f *front) list(name string, required bool) []string {
	n := f.fields[name]
	if n == nil {
		if required {
			f.problems = append(f.problems, Problem{Path: f.path, Line: f.offset, Msg: fmt.Sprintf("missing required field %q", name)})
		}
		return nil
	}
	if n.Kind == yaml.ScalarNode && n.Value != "" {
		return []string{strings.TrimSpace(n.Value)} // tolerate a single value
	}
	if n.Kind != yaml.SequenceNode {
		f.addf(n.Line, "field %q must be a list", name)
		return nil
	}
	var out []string
	for _, item := range n.Content {
		if item.Kind != yaml.ScalarNode {
			f.addf(item.Line, "field %q: every item must be text", name)
			continue
		}
		out = append(out, strings.TrimSpace(item.Value))
	}
	if required && len(out) == 0 {
		f.addf(n.Line, "field %q is empty", name)
	}
	return out
}

// terms reads a list of taxonomy ids, reporting unknown ones on their own
// line with the nearest known id.
func (f *front) terms(name string, facet Facet, tax *Taxonomy, required bool) []string {
	vals := f.list(name, required)
	n := f.fields[name]
	var out []string
	seen := map[string]bool{}
	for i, v := range vals {
		line := n.Line
		if n.Kind == yaml.SequenceNode && i < len(n.Content) {
			line = n.Content[i].Line
		}
		if isTodo(v) {
			continue // todoProblems reports it
		}
		if _, ok := tax.Term(facet, v); !ok {
			f.addf(line, "unknown %s %q in %s%s", facet.Label(), v, name, didYouMean(v, tax.IDs(facet)))
			continue
		}
		if seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	return out
}

// requireSections checks that the wanted "##" sections appear in order.
func requireSections(path string, secs []Section, want []string, fallbackLine int) []Problem {
	var problems []Problem
	pos := map[string]int{}
	for i, s := range secs {
		pos[strings.ToLower(s.Title)] = i
	}
	last := -1
	for _, w := range want {
		i, ok := pos[strings.ToLower(w)]
		if !ok {
			problems = append(problems, Problem{Path: path, Line: fallbackLine, Msg: fmt.Sprintf("missing section %q (a \"## %s\" heading)", w, w)})
			continue
		}
		if i < last {
			problems = append(problems, Problem{Path: path, Line: secs[i].Line, Msg: fmt.Sprintf("section %q is out of order (want %s)", w, strings.Join(want, ", "))})
		}
		last = i
	}
	return problems
}

func sortedKeys[M ~map[string]V, V any](m M) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
