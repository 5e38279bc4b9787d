package store

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnfilteredAnswersAreCachedAndCopied(t *testing.T) {
	s, lib := readStore(t)
	ctx := context.Background()
	first, err := s.FacetCounts(ctx, Filter{}, lib.Taxonomy)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.facetCounts(ctx, Filter{}, lib.Taxonomy)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Fatalf("cached counts differ from a fresh count (-want +got):\n%s", diff)
	}
	// A caller that changes its answer must not change the next one.
	first["org"][0].Count = -1
	delete(first, "year")
	again, err := s.FacetCounts(ctx, Filter{}, lib.Taxonomy)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("a caller's change leaked into the cache (-want +got):\n%s", diff)
	}

	slugs, err := s.OrgSlugs(ctx)
	if err != nil || len(slugs) == 0 {
		t.Fatalf("OrgSlugs = %v, %v", slugs, err)
	}
	slugs[0] = "changed"
	again2, _ := s.OrgSlugs(ctx)
	if again2[0] == "changed" {
		t.Error("a caller's change to OrgSlugs leaked into the cache")
	}
}
