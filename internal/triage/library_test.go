package triage

import (
	"os"
	"sync"
	"testing"

	"casebook/internal/library"
)

// libraryRoot is the real library the tests run against, so a tree or
// signal that breaks the wizard breaks the build.
const libraryRoot = "../../library"

var (
	realOnce    sync.Once
	realCatalog *Catalog
	realLoad    []library.Problem
)

// loadReal loads library/triage once per test binary and fails the test
// when the files do not load cleanly.
func loadReal(t testing.TB) *Catalog {
	t.Helper()
	realOnce.Do(func() { realCatalog, realLoad = Load(os.DirFS(libraryRoot)) })
	for _, p := range realLoad {
		t.Errorf("load: %s", p)
	}
	return realCatalog
}

// playbookAnchors reads the anchors of the playbooks that exist, as the
// server's lint does.
func playbookAnchors(t *testing.T) map[string][]string {
	t.Helper()
	lib, _, err := library.Load(os.DirFS(libraryRoot))
	if err != nil {
		t.Fatalf("library.Load: %v", err)
	}
	return lib.PlaybookAnchors()
}

func TestRealLibraryLints(t *testing.T) {
	c := loadReal(t)
	for _, p := range c.Lint(playbookAnchors(t)) {
		t.Errorf("lint: %s", p)
	}
	for _, p := range c.KoProblems() {
		t.Errorf("Korean twin: %s", p)
	}
}
