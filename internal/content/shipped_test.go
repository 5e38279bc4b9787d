package content

import (
	"os"
	"sort"
	"testing"

	"casebook/internal/library"
	"casebook/internal/triage"
)

// TestShippedLibraryBacksEveryRoute holds the shipped library to what the
// wizard promises: every route it can end on is backed by at least three
// real incidents that show it, so an outcome never stands alone.
func TestShippedLibraryBacksEveryRoute(t *testing.T) {
	fsys := os.DirFS("../../library")
	lib, _, err := library.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	cat, problems := triage.Load(fsys)
	if len(problems) > 0 {
		t.Fatalf("triage problems: %v", problems)
	}
	count := map[string]int{}
	for _, in := range lib.Incidents {
		for _, r := range in.Routes {
			count[r]++
		}
	}
	for _, r := range cat.RouteIDs() {
		if count[r] < 3 {
			t.Errorf("route %s is backed by %d incidents, want at least 3", r, count[r])
		}
	}
	for _, pb := range lib.Playbooks {
		for _, o := range cat.PlaybookRoutes(pb.ID) {
			if pb.HeadingTitle(o.Section) == "" {
				t.Errorf("route %s ends in %s#%s, which has no such section", o.Route, pb.ID, o.Section)
			}
		}
	}
}

// TestShippedLibraryTermsTellIncidentsApart fails when a term other than a
// domain is on more than a third of the library: a tag that broad filters
// nothing and makes unrelated incidents look similar.
func TestShippedLibraryTermsTellIncidentsApart(t *testing.T) {
	lib, _, err := library.Load(os.DirFS("../../library"))
	if err != nil {
		t.Fatal(err)
	}
	n := len(lib.Incidents)
	for _, f := range []library.Facet{library.FacetCause, library.FacetComponent, library.FacetSymptom, library.FacetFactor} {
		uses := map[string]int{}
		for _, in := range lib.Incidents {
			for _, id := range in.Terms(f) {
				uses[id]++
			}
		}
		var over []string
		for id, k := range uses {
			if 3*k > n {
				over = append(over, id)
			}
		}
		sort.Strings(over)
		for _, id := range over {
			t.Errorf("%s %q is on %d of %d incidents (more than a third)", f.Label(), id, uses[id], n)
		}
	}
}
