package library

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Source is a public write-up an incident is based on.
type Source struct {
	URL   string `json:"url" yaml:"url"`
	Title string `json:"title" yaml:"title"`
	Kind  string `json:"kind" yaml:"kind"`
	// Retrieved is the day the source was read (YYYY-MM-DD), so a reader
	// can tell how fresh the facts are and re-check a page that changed.
	Retrieved string `json:"retrieved" yaml:"retrieved"`
	// Secondary marks an aggregator or a news rewrite: useful beside the
	// primary write-up, never in its place.
	Secondary bool `json:"secondary,omitempty" yaml:"secondary"`
	// Quote is a passage copied verbatim from the source, in its language,
	// that carries the entry's central claim, so a reader can check the
	// entry against the source without leaving the page.
	Quote string `json:"quote,omitempty" yaml:"quote"`
}

var sourceFields = []string{"url", "title", "kind", "retrieved", "secondary", "quote"}

// maxQuote bounds a source's quote: a passage that carries the claim, not
// a copy of the source.
const maxQuote = 600

// Kinds of library entries. A study aggregates many failures (a fleet's
// failure statistics, a training run's interruptions); it is kept beside
// incidents but not counted as one.
const (
	KindIncident = "incident"
	KindStudy    = "study"
)

// EntryKinds are the accepted values of an incident's kind.
var EntryKinds = []string{KindIncident, KindStudy}

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

	TitleKo   string `json:"title_ko,omitempty"`
	SummaryKo string `json:"summary_ko,omitempty"`
	// Kind is KindIncident or KindStudy.
	Kind string `json:"kind"`
	// Routes are the triage routes the incident shows (route ids of the
	// triage catalogue; content lint checks they exist).
	Routes []string `json:"routes,omitempty"`
	// Added is the day the entry joined the library (YYYY-MM-DD), which
	// orders the feed: a 2019 postmortem added today is news to readers.
	Added string `json:"added,omitempty"`
	// Ko is the Korean body, from IL-NNNN-slug.ko.md beside the file,
	// when one exists.
	Ko *IncidentKo `json:"ko,omitempty"`
	// Body holds the sections when the incident was parsed, and Sections
	// is then nil (see Body); FullSections returns them either way.
	Body Body `json:"-"`
	// Provenance says which layer the incident comes from and where its
	// file is edited.
	Provenance
}

// IncidentKo is the Korean body of an incident: the same sections, in the
// same order, with the same anchors as the English file.
type IncidentKo struct {
	Sections []Section `json:"sections"`
	Path     string    `json:"path"`
	Body     Body      `json:"-"` // the sections, as Incident.Body
}

// IsStudy reports whether the entry is an aggregate study.
func (in *Incident) IsStudy() bool { return in.Kind == KindStudy }

// IncidentSections are the required body sections, in order.
var IncidentSections = []string{"Symptom", "Trigger", "Detection", "Response", "Follow-ups", "Lessons"}

// IncidentSectionsKo are the Korean headings of IncidentSections, in the
// same order; a Korean body uses them and gets the English anchors.
var IncidentSectionsKo = []string{"증상", "촉발", "감지", "조치", "후속 조치", "교훈"}

var incidentFields = []string{"id", "title", "summary", "organization", "date", "domains", "components", "causes",
	"symptoms", "contributing_factors", "trigger", "detection", "sources", "playbooks",
	"title_ko", "summary_ko", "kind", "routes", "added"}

// routePattern is the shape of a triage route id: "pending/untolerated-taint".
var routePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*/[a-z0-9]+(-[a-z0-9]+)*$`)

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

// Section returns the section with the given title, with its texts, or
// nil.
func (in *Incident) Section(title string) *Section {
	secs := in.FullSections()
	for i := range secs {
		if strings.EqualFold(secs[i].Title, title) {
			return &secs[i]
		}
	}
	return nil
}

// parseIncident validates one incident file. It returns nil when the file has
// a problem that makes it unusable; lesser problems are reported but the
// incident still loads.
func parseIncident(p string, src []byte, tax *Taxonomy, layer LayerInfo) (*Incident, []Problem) {
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
	idPat := layer.IncidentPattern()
	if in.ID != "" && !idPat.MatchString(in.ID) {
		if layer.Public() {
			f.addf(f.line("id")-f.offset, "id %q must look like IL-0042", in.ID)
		} else {
			f.addf(f.line("id")-f.offset, "id %q must look like %s: incidents of layer %s use its prefix %s (layer.yaml)", in.ID, layer.IncidentID(42), layer.Name, layer.Prefix)
		}
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
	in.TitleKo = f.str("title_ko", true)
	in.SummaryKo = f.str("summary_ko", true)
	in.Kind = f.str("kind", false)
	switch {
	case in.Kind == "":
		in.Kind = KindIncident
	case !contains(EntryKinds, in.Kind):
		f.addf(f.line("kind")-f.offset, "kind %q is not one of %s%s", in.Kind, strings.Join(EntryKinds, ", "), didYouMean(in.Kind, EntryKinds))
		in.Kind = KindIncident
	}
	in.Routes = parseRoutes(f)
	in.Added = f.str("added", false)
	if in.Added != "" && !isDay(in.Added) {
		f.addf(f.line("added")-f.offset, "bad added date %q: want YYYY-MM-DD", in.Added)
		in.Added = ""
	}
	in.Sources = parseSources(f)
	if len(in.Sources) > 0 && !quoted(in.Sources) {
		f.addf(f.line("sources")-f.offset, "no source carries a quote: copy the passage that supports what failed, why or what fixed it, verbatim and in its language, into a source's quote")
	}
	in.Sections = doc.sections
	problems := f.problems
	problems = append(problems, requireSections(p, doc.sections, IncidentSections, lastLine(src))...)
	problems = append(problems, todoProblems(p, src, doc)...)
	if in.ID == "" || !idPat.MatchString(in.ID) || !nameOK || in.Title == "" {
		return nil, problems
	}
	in.Body, in.Sections = pack(in.Sections), nil
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
	primary := false
	for _, item := range n.Content {
		var s Source
		if item.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(item.Content); i += 2 {
				if k := item.Content[i]; !contains(sourceFields, k.Value) {
					f.addf(k.Line, "unknown source field %q%s", k.Value, didYouMean(k.Value, sourceFields))
				}
			}
		}
		if err := item.Decode(&s); err != nil {
			f.addf(item.Line, "source: %s", yamlErr(err, f.offset))
			continue
		}
		u, err := url.Parse(s.URL)
		switch {
		case isTodo(s.URL):
			continue // todoProblems reports it
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
		switch {
		case s.Retrieved == "":
			f.addf(item.Line, "source %s has no retrieved date (the day it was read, YYYY-MM-DD)", s.URL)
		case !isDay(s.Retrieved):
			f.addf(item.Line, "source %s: bad retrieved date %q: want YYYY-MM-DD", s.URL, s.Retrieved)
		}
		s.Quote = strings.TrimSpace(s.Quote)
		if len([]rune(s.Quote)) > maxQuote {
			f.addf(item.Line, "source %s: quote has %d characters: quote the passage that carries the claim, up to about 400", s.URL, len([]rune(s.Quote)))
		}
		primary = primary || !s.Secondary
		out = append(out, s)
	}
	if len(out) > 0 && !primary {
		f.addf(n.Line, "every source is secondary: cite the primary write-up (a postmortem, status page, paper or issue) beside them")
	}
	return out
}

func quoted(sources []Source) bool {
	for _, s := range sources {
		if s.Quote != "" {
			return true
		}
	}
	return false
}

// parseRoutes reads the routes list; whether each route exists is for
// content lint, which knows the triage catalogue.
func parseRoutes(f *front) []string {
	vals := f.list("routes", false)
	n := f.fields["routes"]
	var out []string
	for i, v := range vals {
		line := n.Line
		if n.Kind == yaml.SequenceNode && i < len(n.Content) {
			line = n.Content[i].Line
		}
		if !routePattern.MatchString(v) {
			f.addf(line, "route %q must look like pending/untolerated-taint", v)
			continue
		}
		if !contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// isDay reports whether s is a valid YYYY-MM-DD date.
func isDay(s string) bool {
	m := datePattern.FindStringSubmatch(s)
	if m == nil || m[3] == "" {
		return false
	}
	_, ok := parseDate(s)
	return ok
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

// RouteProblems reports routes of incidents that the triage catalogue does
// not know; known answers whether a route id exists. Each incident's file is
// read again only to place the problem on its line.
func (l *Library) RouteProblems(known func(string) bool) []Problem {
	var out []Problem
	for _, in := range l.Incidents {
		for _, r := range in.Routes {
			if known(r) {
				continue
			}
			var src []byte
			if ly, ok := l.layers[in.Layer]; ok {
				src = readOrNil(ly.FS, in.Path)
			}
			out = append(out, Problem{Path: l.Show(in.Layer, in.Path), Line: itemLine(src, "routes", r), Layer: in.Layer,
				Msg: fmt.Sprintf("route %q is not a route of the triage trees (see library/triage/*.yaml outcomes)", r)})
		}
	}
	return out
}

// itemLine finds the line of a value inside a top-level front-matter list,
// flow style ("routes: [a, b]") or block style.
func itemLine(src []byte, field, value string) int {
	start := fieldLine(src, field)
	lines := strings.Split(string(src), "\n")
	for i := start - 1; i < len(lines) && i >= 0; i++ {
		if i > start-1 && (strings.TrimSpace(lines[i]) == "---" || (len(lines[i]) > 0 && lines[i][0] != ' ' && lines[i][0] != '-')) {
			break
		}
		if strings.Contains(lines[i], value) {
			return i + 1
		}
	}
	return start
}
