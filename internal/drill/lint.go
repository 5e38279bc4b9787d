package drill

import (
	"fmt"
	"io/fs"

	"casebook/internal/library"
	"casebook/internal/probe"
	"casebook/internal/triage"
)

// Lint returns every problem of the library's drills: those Load finds
// (fields, recordings, evidence lines) and, with the library and the
// triage catalogue, incidents, routes and questions that do not exist,
// and answers the recording itself already gives. lib or cat may be nil
// when they failed to load.
func Lint(fsys fs.FS, lib *library.Library, cat *triage.Catalog) []library.Problem {
	set, problems := Load(fsys)
	// Load leaves out drills with problems; lint checks what it can of
	// them too, so one run shows everything.
	all := set.Drills
	names, _ := fs.Glob(fsys, Dir+"/*.yaml")
	for _, name := range names {
		if d, _ := loadOne(fsys, name); d != nil {
			if _, ok := set.byID[d.ID]; !ok {
				all = append(all, d)
			}
		}
	}
	for _, d := range all {
		problems = append(problems, d.crossCheck(lib, cat)...)
	}
	library.SortProblems(problems)
	return problems
}

func (d *Drill) crossCheck(lib *library.Library, cat *triage.Catalog) []library.Problem {
	var problems []library.Problem
	bad := func(field string, format string, args ...any) {
		problems = append(problems, library.Problem{Path: d.Path, Line: d.lineOf(field), Msg: fmt.Sprintf(format, args...)})
	}
	if lib != nil {
		for _, id := range d.Incidents {
			if _, ok := lib.Incident(id); !ok {
				bad("incidents", "names incident %s, which is not in the library", id)
			}
		}
	}
	if cat == nil {
		return problems
	}
	if d.Route != "" {
		if _, ok := cat.Route(d.Route); !ok {
			bad("route", "route %q is not a triage route", d.Route)
		}
	}
	if d.Decoy != nil && d.Decoy.Route != "" {
		if _, ok := cat.Route(d.Decoy.Route); !ok {
			bad("decoy", "decoy route %q is not a triage route", d.Decoy.Route)
		}
	}
	for i, a := range d.Answers {
		field := fmt.Sprintf("answers[%d]", i)
		n, ok := cat.Node(a.Question)
		if !ok || n.IsOutcome() {
			bad(field, "answers a question %q the triage trees do not ask", a.Question)
			continue
		}
		if _, ok := n.Choice(a.Choice); !ok {
			bad(field, "question %s has no answer %q", a.Question, a.Choice)
		}
		// An answer stands in for what a recording cannot show; where the
		// probe can tell, the drill must leave the question to it.
		if n.Probe != "" && d.Snapshot != nil {
			if r := probe.Answer(d.Snapshot, n.Probe, cat); r.Known {
				bad(field, "the recording answers %s itself (%s probe: %s); drop this answer", a.Question, n.Probe, r.Value)
			}
		}
	}
	if d.Snapshot != nil && len(d.Answers) > 0 {
		if _, _, err := d.Walk(cat); err != nil {
			bad("answers", "the answers do not fit the triage trees: %v", err)
		}
	}
	return problems
}
