package content

import (
	"io/fs"

	"casebook/internal/drill"
	"casebook/internal/library"
	"casebook/internal/triage"
)

// Lint returns every problem of the library rooted at fsys: content files,
// triage trees and signals, and checks. The error is non-nil when nothing
// valid is left.
func Lint(fsys fs.FS) ([]library.Problem, error) {
	return LintStack(library.NewStack(library.Layer{FS: fsys}))
}

// LintStack returns every problem of a library stacked from layers, within
// each layer and across them (a redefined term, an id two layers use).
func LintStack(stack *library.Stack) ([]library.Problem, error) {
	lib, problems, err := stack.Load()
	problems = append(problems, extraProblems(stack.Layers(), lib)...)
	for _, l := range stack.Layers() {
		problems = append(problems, library.KoreanStyleFS(l)...)
	}
	stack.Attribute(problems)
	library.SortProblems(problems)
	return problems, err
}

// extraProblems validates the parts of the library beyond incidents and
// playbooks. lib may be nil when the library failed to load.
func extraProblems(layers []library.Layer, lib *library.Library) []library.Problem {
	cat, problems := loadTriage(layers, lib)
	if lib != nil {
		problems = append(problems, lib.RouteProblems(func(r string) bool { _, ok := cat.Route(r); return ok })...)
	}
	_, checkProblems := loadChecks(layers, lib)
	problems = append(problems, checkProblems...)
	// Drills of every layer, checked against the whole library.
	for _, l := range layers {
		ps := drill.Lint(l.FS, lib, cat)
		for i := range ps {
			ps[i].Path = l.Show(ps[i].Path)
		}
		problems = append(problems, ps...)
	}
	return problems
}

// loadTriage loads the triage catalogue, reports every text without its
// Korean twin and, when the playbooks are known, checks that every outcome
// and signal points at a real playbook section.
func loadTriage(layers []library.Layer, lib *library.Library) (*triage.Catalog, []library.Problem) {
	cat, problems := triage.LoadLayers(layers)
	problems = append(problems, cat.KoProblems()...)
	if lib != nil {
		problems = append(problems, cat.Lint(lib.PlaybookAnchors())...)
	}
	return cat, problems
}
