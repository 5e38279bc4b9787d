package gaps

import (
	"io/fs"
	"slices"
	"strings"

	"casebook/internal/library"
)

// Set is the compiled checks of one library.
type Set struct {
	Checks []*Check // by id
}

// Load parses and compiles every check of a library root. Checks with
// problems are left out and their problems returned, so one typo does not
// disable the others.
func Load(fsys fs.FS) (*Set, []library.Problem) {
	return LoadLayers([]library.Layer{{FS: fsys}})
}

// LoadLayers parses and compiles the checks of every layer, bottom first: a
// team adds its own checks beside the public ones. Ids are unique across
// layers; a duplicate is left out with a problem naming both files.
func LoadLayers(layers []library.Layer) (*Set, []library.Problem) {
	var parsed []*Check
	var problems []library.Problem
	for _, l := range layers {
		cs, ps := parseFiles(l)
		parsed, problems = append(parsed, cs...), append(problems, ps...)
	}
	s := &Set{}
	seen := map[string]string{}
	for _, c := range parsed {
		ps := compile(c)
		if prev, dup := seen[c.ID]; dup {
			ps = append(ps, library.Problem{Path: c.Path, Line: c.lineOf("id"), Msg: "duplicate check id " + c.ID + " (also in " + prev + ")"})
		}
		problems = append(problems, ps...)
		if len(ps) == 0 {
			seen[c.ID] = c.Path
			s.Checks = append(s.Checks, c)
		}
	}
	library.SortProblems(problems)
	return s, problems
}

// Lint returns every problem of the library's checks: those Load finds,
// texts without their Korean twin, and, when the library loaded, incidents
// and playbooks that do not exist.
func Lint(fsys fs.FS, lib *library.Library) []library.Problem {
	set, problems := Load(fsys)
	problems = append(problems, set.KoProblems()...)
	problems = append(problems, set.Dangling(lib)...)
	library.SortProblems(problems)
	return problems
}

// Dangling lists the citations of the checks that lib cannot resolve: an
// incident it does not have, a playbook or a section heading it lacks.
// With no library (it failed to load) there is nothing to resolve against.
func (s *Set) Dangling(lib *library.Library) []library.Problem {
	if lib == nil {
		return nil
	}
	var problems []library.Problem
	anchors := lib.PlaybookAnchors()
	for _, c := range s.Checks {
		for _, id := range c.Incidents {
			if _, ok := lib.Incident(id); !ok {
				problems = append(problems, library.Problem{Path: c.Path, Line: c.lineOf("incidents"), Msg: "cites incident " + id + ", which is not in the library"})
			}
		}
		for _, ref := range c.Playbooks {
			id, anchor, _ := strings.Cut(ref, "#")
			switch {
			case anchors[id] == nil:
				problems = append(problems, library.Problem{Path: c.Path, Line: c.lineOf("playbooks"), Msg: "names playbook " + id + ", which is not in the library"})
			case anchor != "" && !slices.Contains(anchors[id], anchor):
				problems = append(problems, library.Problem{Path: c.Path, Line: c.lineOf("playbooks"), Msg: "names section #" + anchor + " of playbook " + id + ", which has no such heading"})
			}
		}
	}
	return problems
}

// For lists the checks that cite an incident, for its page.
func (s *Set) For(incident string) []*Check {
	var out []*Check
	for _, c := range s.Checks {
		if c.Cites(incident) {
			out = append(out, c)
		}
	}
	return out
}

// Check returns the check with the given id.
func (s *Set) Check(id string) (*Check, bool) {
	for _, c := range s.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return nil, false
}
