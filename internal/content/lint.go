package content

import (
	"io/fs"

	"casebook/internal/drill"
	"casebook/internal/gaps"
	"casebook/internal/library"
	"casebook/internal/triage"
)

// Lint returns every problem of the library rooted at fsys: content files,
// triage trees and signals, and checks. The error is non-nil when nothing
// valid is left.
func Lint(fsys fs.FS) ([]library.Problem, error) {
	lib, problems, err := library.Load(fsys)
	problems = append(problems, extraProblems(fsys, lib)...)
	library.SortProblems(problems)
	return problems, err
}

// extraProblems validates the parts of the library beyond incidents and
// playbooks. lib may be nil when the library failed to load.
func extraProblems(fsys fs.FS, lib *library.Library) []library.Problem {
	cat, problems := loadTriage(fsys, lib)
	if lib != nil {
		problems = append(problems, lib.RouteProblems(func(r string) bool { _, ok := cat.Route(r); return ok })...)
	}
	problems = append(problems, gaps.Lint(fsys, lib)...)
	return append(problems, drill.Lint(fsys, lib, cat)...)
}

// loadTriage loads the triage catalogue, reports every text without its
// Korean twin and, when the playbooks are known, checks that every outcome
// and signal points at a real playbook section.
func loadTriage(fsys fs.FS, lib *library.Library) (*triage.Catalog, []library.Problem) {
	cat, problems := triage.Load(fsys)
	problems = append(problems, cat.KoProblems()...)
	if lib != nil {
		problems = append(problems, cat.Lint(lib.PlaybookAnchors())...)
	}
	return cat, problems
}
