package library

import "path"

// Playbook is a step-by-step guide for triaging one symptom.
type Playbook struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Summary    string    `json:"summary"`
	Symptoms   []string  `json:"symptoms"`
	Components []string  `json:"components"`
	Signals    []string  `json:"signals"`
	Sections   []Section `json:"sections"`
	Path       string    `json:"path"`
	// Ko is the Korean playbook from <id>.ko.md, when one exists; its
	// anchors are the same as the English ones.
	Ko *PlaybookKo `json:"ko,omitempty"`
	// Provenance says which layer the playbook comes from and where its
	// file is edited.
	Provenance
	// Overrides names the playbook of a lower layer with the same id that
	// this one replaces (a team's own version of a public playbook).
	Overrides *Override `json:"overrides,omitempty"`
}

// Override names the playbook a later layer's playbook replaces.
type Override struct {
	Layer string `json:"layer"`
	Path  string `json:"path"`
}

// PlaybookSections are the required body sections, in order.
var PlaybookSections = []string{"Detect", "Scope", "Mitigate", "Root cause", "Verify", "Record"}

var playbookFields = []string{"id", "title", "summary", "symptoms", "components", "signals"}

// Anchors lists every heading anchor of the playbook: sections and the
// sub-headings inside them. Triage outcomes may link to any of them.
func (pb *Playbook) Anchors() []string {
	var out []string
	for _, s := range pb.Sections {
		out = append(out, s.ID)
		for _, h := range s.Anchors {
			out = append(out, h.ID)
		}
	}
	return out
}

// HeadingTitle returns the text of the heading with the given anchor.
func (pb *Playbook) HeadingTitle(anchor string) string {
	for _, s := range pb.Sections {
		if s.ID == anchor {
			return s.Title
		}
		for _, h := range s.Anchors {
			if h.ID == anchor {
				return h.Title
			}
		}
	}
	return ""
}

func parsePlaybook(p string, src []byte, tax *Taxonomy) (*Playbook, []Problem) {
	doc, prob := parseDocument(p, src)
	if prob != nil {
		return nil, []Problem{*prob}
	}
	f := newFront(p, doc.front, doc.frontLine-1, playbookFields)
	pb := &Playbook{Path: p}
	pb.ID = f.str("id", true)
	// As for incidents, the file name decides the id.
	nameOK := true
	if pb.ID != "" && !idPattern.MatchString(pb.ID) {
		f.addf(f.line("id")-f.offset, "playbook id %q must be lower-case words joined by hyphens", pb.ID)
	} else if want := pb.ID + ".md"; pb.ID != "" && path.Base(p) != want {
		f.addf(f.line("id")-f.offset, "playbook id %s does not match the file name %s (want %s)", pb.ID, path.Base(p), want)
		nameOK = false
	}
	pb.Title = f.str("title", true)
	pb.Summary = f.str("summary", true)
	pb.Symptoms = f.terms("symptoms", FacetSymptom, tax, true)
	pb.Components = f.terms("components", FacetComponent, tax, false)
	pb.Signals = f.list("signals", false)
	pb.Sections = doc.sections
	problems := append(f.problems, requireSections(p, doc.sections, PlaybookSections, lastLine(src))...)
	problems = append(problems, todoProblems(p, src, doc)...)
	if pb.ID == "" || !idPattern.MatchString(pb.ID) || !nameOK || pb.Title == "" {
		return nil, problems
	}
	return pb, problems
}
