package search

import (
	"context"
	"os"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"

	"casebook/internal/library"
	"casebook/internal/triage"
)

type routeQueries struct {
	Route   string   `yaml:"route"`
	Queries []string `yaml:"queries"`
}

// TestRouteQueriesFindTheRoutesCases holds search to the wizard's promise:
// whoever searches for a route's symptom in their own words (English or
// Korean) meets an incident that shows that route among the first five
// incidents. Every route of the shipped triage trees needs a query here.
func TestRouteQueriesFindTheRoutesCases(t *testing.T) {
	lib := loadLibrary(t)
	data, err := os.ReadFile("testdata/route_queries.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var sets []routeQueries
	if err := yaml.Unmarshal(data, &sets); err != nil {
		t.Fatal(err)
	}
	cat, problems := triage.Load(os.DirFS(libraryDir))
	if len(problems) > 0 {
		t.Fatalf("triage problems: %v", problems)
	}
	covered := map[string]bool{}
	for _, s := range sets {
		covered[s.Route] = true
	}
	for _, r := range cat.RouteIDs() {
		if !covered[r] {
			t.Errorf("route %s has no query in testdata/route_queries.yaml", r)
		}
	}

	byID := map[string]*library.Incident{}
	for _, in := range lib.Incidents {
		byID[in.ID] = in
	}
	ix := sharedIndex(t)
	for _, s := range sets {
		for _, q := range s.Queries {
			res, err := ix.Search(context.Background(), Request{Query: q, Kind: KindIncident, PerPage: 5})
			if err != nil {
				t.Errorf("%q: %v", q, err)
				continue
			}
			found := false
			for _, h := range res.Hits {
				if in := byID[h.ID]; in != nil && slices.Contains(in.Routes, s.Route) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: %q finds none of the route's incidents in the top 5: %v", s.Route, q, hitIDs(res))
			}
		}
	}
}
