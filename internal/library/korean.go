package library

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Korean content lives beside the English file it belongs to, with ".ko"
// before the extension (IL-0171-slug.ko.md, pod-pending.ko.md), the
// convention Hugo uses for translations. The English file owns the front
// matter that classifies the entry; the Korean file carries only text, and
// its headings keep the English anchors so links work in both languages.

// koSuffix marks a Korean file.
const koSuffix = ".ko.md"

// IsKorean reports whether a library file is the Korean twin of another.
func IsKorean(p string) bool { return strings.HasSuffix(p, koSuffix) }

// englishPath is the file a Korean twin belongs to.
func englishPath(p string) string { return strings.TrimSuffix(p, koSuffix) + ".md" }

// PlaybookKo is the Korean text of a playbook.
type PlaybookKo struct {
	Title    string    `json:"title"`
	Summary  string    `json:"summary"`
	Sections []Section `json:"sections"`
	Path     string    `json:"path"`
}

// splitKorean separates Korean twins from the English files of a glob.
func splitKorean(files []string) (en, ko []string) {
	for _, f := range files {
		if IsKorean(f) {
			ko = append(ko, f)
		} else {
			en = append(en, f)
		}
	}
	return en, ko
}

// koTwin is a parsed Korean file before it is attached to its English one.
type koTwin struct {
	id       string
	title    string
	summary  string
	sections []Section
	body     Body // an incident's sections, packed (see Body); sections is then nil
	idLine   int
}

// parseIncidentKo reads a Korean incident body: front matter with only the
// id, then the six sections under their Korean headings, in order. Each
// section takes the anchor of its English counterpart.
func parseIncidentKo(p string, src []byte) (*koTwin, []Problem) {
	doc, prob := parseDocument(p, src)
	if prob != nil {
		return nil, []Problem{*prob}
	}
	f := newFront(p, doc.front, doc.frontLine-1, []string{"id"})
	t := &koTwin{id: f.str("id", true), idLine: f.line("id")}
	problems := f.problems
	if doc.preamble != "" {
		problems = append(problems, Problem{Path: p, Line: doc.frontLine, Msg: "text before the first section: every line belongs under one of " + strings.Join(IncidentSectionsKo, ", ")})
	}
	for _, s := range doc.sections {
		want := slices.Index(IncidentSectionsKo, s.Title)
		if want < 0 {
			problems = append(problems, Problem{Path: p, Line: s.Line, Msg: fmt.Sprintf("section %q is not one of %s", s.Title, strings.Join(IncidentSectionsKo, ", "))})
			continue
		}
		s.ID = Slug(IncidentSections[want])
		t.sections = append(t.sections, s)
	}
	problems = append(problems, requireSections(p, doc.sections, IncidentSectionsKo, lastLine(src))...)
	t.body, t.sections = pack(t.sections), nil
	return t, problems
}

// parsePlaybookKo reads a Korean playbook: id, title and summary in the
// front matter, and headings that carry the English anchors explicitly
// ("## 탐지 {#detect}").
func parsePlaybookKo(p string, src []byte) (*koTwin, []Problem) {
	doc, prob := parseDocument(p, src)
	if prob != nil {
		return nil, []Problem{*prob}
	}
	f := newFront(p, doc.front, doc.frontLine-1, []string{"id", "title", "summary"})
	t := &koTwin{id: f.str("id", true), title: f.str("title", true), summary: f.str("summary", true), idLine: f.line("id"), sections: doc.sections}
	return t, f.problems
}

// attachIncidentKo pairs Korean incident bodies with their English files.
func (l *Library) attachIncidentKo(twins []parsed[*koTwin]) []Problem {
	byPath := make(map[string]*Incident, len(l.Incidents))
	for _, in := range l.Incidents {
		byPath[in.Path] = in
	}
	var problems []Problem
	for _, r := range twins {
		if r.err != nil {
			problems = append(problems, Problem{Path: r.path, Msg: r.err.Error()})
			continue
		}
		problems = append(problems, r.problems...)
		if r.v == nil {
			continue
		}
		in := byPath[englishPath(r.path)]
		switch {
		case in == nil:
			problems = append(problems, Problem{Path: r.path, Line: 1, Msg: fmt.Sprintf("Korean body without an English incident: there is no %s", path.Base(englishPath(r.path)))})
		case r.v.id != in.ID:
			problems = append(problems, Problem{Path: r.path, Line: r.v.idLine, Msg: fmt.Sprintf("id %s does not match the English file's id %s", r.v.id, in.ID)})
		default:
			in.Ko = &IncidentKo{Sections: r.v.sections, Path: r.path, Body: r.v.body}
		}
	}
	return problems
}

// attachPlaybookKo pairs Korean playbooks with their English files and
// checks that both have the same anchors in the same order, so a wizard
// link to a section lands on it in either language.
func (l *Library) attachPlaybookKo(twins []parsed[*koTwin]) []Problem {
	byPath := make(map[string]*Playbook, len(l.Playbooks))
	for _, pb := range l.Playbooks {
		byPath[pb.Path] = pb
	}
	var problems []Problem
	for _, r := range twins {
		if r.err != nil {
			problems = append(problems, Problem{Path: r.path, Msg: r.err.Error()})
			continue
		}
		problems = append(problems, r.problems...)
		if r.v == nil {
			continue
		}
		pb := byPath[englishPath(r.path)]
		if pb == nil {
			problems = append(problems, Problem{Path: r.path, Line: 1, Msg: fmt.Sprintf("Korean playbook without an English one: there is no %s", path.Base(englishPath(r.path)))})
			continue
		}
		if r.v.id != pb.ID {
			problems = append(problems, Problem{Path: r.path, Line: r.v.idLine, Msg: fmt.Sprintf("id %s does not match the English file's id %s", r.v.id, pb.ID)})
			continue
		}
		ko := &PlaybookKo{Title: r.v.title, Summary: r.v.summary, Sections: r.v.sections, Path: r.path}
		if ps := anchorParity(r.path, pb, ko); len(ps) > 0 {
			problems = append(problems, ps...)
			continue
		}
		pb.Ko = ko
	}
	return problems
}

// anchorParity reports the anchors one language has and the other lacks,
// and sections in another order.
func anchorParity(p string, en *Playbook, ko *PlaybookKo) []Problem {
	var problems []Problem
	enAnchors := en.Anchors()
	koPB := &Playbook{Sections: ko.Sections}
	koAnchors := koPB.Anchors()
	line := func(anchor string) int {
		for _, s := range ko.Sections {
			if s.ID == anchor {
				return s.Line
			}
		}
		if len(ko.Sections) > 0 {
			return ko.Sections[0].Line
		}
		return 1
	}
	for _, a := range koAnchors {
		if !slices.Contains(enAnchors, a) {
			problems = append(problems, Problem{Path: p, Line: line(a), Msg: fmt.Sprintf("anchor #%s is not in %s: give the heading the English heading's anchor, like \"## 탐지 {#detect}\"", a, path.Base(en.Path))})
		}
	}
	for _, a := range enAnchors {
		if !slices.Contains(koAnchors, a) {
			problems = append(problems, Problem{Path: p, Line: 1, Msg: fmt.Sprintf("missing anchor #%s of %s (heading %q)", a, path.Base(en.Path), en.HeadingTitle(a))})
		}
	}
	if len(problems) == 0 {
		for i := range en.Sections {
			if i < len(ko.Sections) && ko.Sections[i].ID != en.Sections[i].ID {
				problems = append(problems, Problem{Path: p, Line: ko.Sections[i].Line, Msg: fmt.Sprintf("section #%s is out of order: the English file has #%s here", ko.Sections[i].ID, en.Sections[i].ID)})
				break
			}
		}
	}
	return problems
}
