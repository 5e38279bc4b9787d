package library

import (
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Source is a public write-up an incident is based on.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Kind  string `json:"kind"`
}

// SourceKinds are the accepted values of a source's kind.
var SourceKinds = []string{"postmortem", "status-page", "talk", "paper", "blog", "issue", "article"}

// Incident is one public incident, classified by the taxonomy.
type Incident struct {
	ID                  string    `json:"id"`
	Title               string    `json:"title"`
	Summary             string    `json:"summary"`
	Organization        string    `json:"organization"`
	Date                string    `json:"date"` // YYYY-MM-DD or YYYY-MM, as written
	Year                int       `json:"year"`
	Domains             []string  `json:"domains"`
	Components          []string  `json:"components"`
	Causes              []string  `json:"causes"`
	Symptoms            []string  `json:"symptoms"`
	ContributingFactors []string  `json:"contributing_factors"`
	Trigger             string    `json:"trigger,omitempty"`
	Detection           string    `json:"detection,omitempty"`
	Sources             []Source  `json:"sources"`
	Playbooks           []string  `json:"playbooks"`
	Sections            []Section `json:"sections"`
	Path                string    `json:"path"`
}

// IncidentSections are the required body sections, in order.
var IncidentSections = []string{"Symptom", "Trigger", "Detection", "Response", "Follow-ups", "Lessons"}

var incidentFields = []string{"id", "title", "summary", "organization", "date", "domains", "components", "causes",
	"symptoms", "contributing_factors", "trigger", "detection", "sources", "playbooks"}

// Terms returns the incident's term ids of a facet.
func (in *Incident) Terms(f Facet) []string {
	switch f {
	case FacetCause:
		return in.Causes
	case FacetComponent:
		return in.Components
	case FacetSymptom:
		return in.Symptoms
	case FacetFactor:
		return in.ContributingFactors
	case FacetDomain:
		return in.Domains
	}
	return nil
}

// Section returns the section with the given title, or nil.
func (in *Incident) Section(title string) *Section {
	for i := range in.Sections {
		if strings.EqualFold(in.Sections[i].Title, title) {
			return &in.Sections[i]
		}
	}
	return nil
}

// parseIncident validates one incident file. It returns nil when the file has
// a problem that makes it unusable; lesser problems are reported but the
// incident still loads.
func parseIncident(p string, src []byte, tax *Taxonomy) (*Incident, []Problem) {
	doc, prob := parseDocument(p, src)
	if prob != nil {
		return nil, []Problem{*prob}
	}
	f := newFront(p, doc.front, doc.frontLine-1, incidentFields)
	in := &Incident{Path: p}
	in.ID = f.str("id", true)
	// The file name decides the id: a copy that kept another incident's id
	// is left out rather than replacing that incident.
	nameOK := true
	if in.ID != "" && !incidentPattern.MatchString(in.ID) {
		f.addf(f.line("id")-f.offset, "id %q must look like IL-0042", in.ID)
	} else if base := path.Base(p); in.ID != "" && !strings.HasPrefix(base, in.ID+"-") && base != in.ID+".md" {
		f.addf(f.line("id")-f.offset, "id %s does not match the file name %s (want %s-slug.md)", in.ID, base, in.ID)
		nameOK = false
	}
	in.Title = f.str("title", true)
	in.Summary = f.str("summary", true)
	in.Organization = f.str("organization", true)
	in.Date = f.str("date", true)
	if in.Date != "" {
		y, ok := parseDate(in.Date)
		if !ok {
			f.addf(f.line("date")-f.offset, "bad date %q: want YYYY-MM-DD or YYYY-MM", in.Date)
		}
		in.Year = y
	}
	in.Domains = f.terms("domains", FacetDomain, tax, true)
	in.Components = f.terms("components", FacetComponent, tax, true)
	in.Causes = f.terms("causes", FacetCause, tax, true)
	in.Symptoms = f.terms("symptoms", FacetSymptom, tax, true)
	in.ContributingFactors = f.terms("contributing_factors", FacetFactor, tax, false)
	in.Trigger = f.str("trigger", false)
	in.Detection = f.str("detection", false)
	in.Playbooks = f.list("playbooks", false)
	in.Sources = parseSources(f)
	in.Sections = doc.sections
	problems := f.problems
	problems = append(problems, requireSections(p, doc.sections, IncidentSections, lastLine(src))...)
	if in.ID == "" || !incidentPattern.MatchString(in.ID) || !nameOK || in.Title == "" {
		return nil, problems
	}
	return in, problems
}

func parseSources(f *front) []Source {
	n := f.fields["sources"]
	if n == nil {
		f.problems = append(f.problems, Problem{Path: f.path, Line: f.offset, Msg: `missing required field "sources": every incident cites its public source`})
		return nil
	}
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		f.addf(n.Line, `field "sources" must be a list of {url, title, kind}`)
		return nil
	}
	var out []Source
	for _, item := range n.Content {
		var s Source
		if err := item.Decode(&s); err != nil {
			f.addf(item.Line, "source: %s", yamlErr(err, f.offset))
			continue
		}
		u, err := url.Parse(s.URL)
		switch {
		case s.URL == "":
			f.addf(item.Line, "source has no url")
			continue
		case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
			f.addf(item.Line, "source url %q is not an http(s) URL", s.URL)
			continue
		case s.Title == "":
			f.addf(item.Line, "source %s has no title", s.URL)
		}
		if s.Kind == "" {
			f.addf(item.Line, "source %s has no kind (one of %s)", s.URL, strings.Join(SourceKinds, ", "))
		} else if !contains(SourceKinds, s.Kind) {
			f.addf(item.Line, "source kind %q is not one of %s%s", s.Kind, strings.Join(SourceKinds, ", "), didYouMean(s.Kind, SourceKinds))
		}
		out = append(out, s)
	}
	return out
}

// parseDate accepts YYYY-MM-DD and YYYY-MM and returns the year.
func parseDate(s string) (int, bool) {
	m := datePattern.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	y, _ := strconv.Atoi(m[1])
	mo, _ := strconv.Atoi(m[2])
	if y < 1970 || y > 2100 || mo < 1 || mo > 12 {
		return 0, false
	}
	if m[3] != "" {
		d, _ := strconv.Atoi(m[3])
		if d < 1 || d > daysIn(y, mo) {
			return 0, false
		}
	}
	return y, true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Anchor reports whether the incident has a section anchor (for links).
func (in *Incident) String() string { return fmt.Sprintf("%s %s", in.ID, in.Title) }
