package fts5

import (
	"context"
	"path/filepath"
	"testing"

	"casebook/internal/library"
	deflib "casebook/library"
)

func TestSearchShippedLibrary(t *testing.T) {
	lib, _, err := library.Load(deflib.FS)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, build := range map[string]func(context.Context, string, *library.Library) (*Index, error){"plain": Build, "tuned": BuildTuned} {
		t.Run(name, func(t *testing.T) { testSearch(t, ctx, build, lib) })
	}
}

func testSearch(t *testing.T, ctx context.Context, build func(context.Context, string, *library.Library) (*Index, error), lib *library.Library) {
	ix, err := build(ctx, filepath.Join(t.TempDir(), "fts.db"), lib)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, tc := range []struct {
		name string
		req  Request
		want string // an id expected in the top 10
	}{
		{"words", Request{Query: "coredns oom zalando"}, "IL-0001"},
		{"phrase", Request{Query: `"memory limit" dns`}, "IL-0001"},
		{"typo", Request{Query: "Zalndo"}, "IL-0001"},
		{"error string", Request{Query: "Insufficient nvidia.com/gpu"}, "pod-pending"},
		{"filtered", Request{Query: "dns", Filters: map[library.Facet][]string{library.FacetComponent: {"coredns"}}}, "IL-0001"},
		{"kind", Request{Query: "dns outage", Kind: "incident"}, "IL-0001"},
		{"relaxed", Request{Query: "zalando qwertyuiopasdf"}, "IL-0001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := ix.Search(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, h := range res.Hits {
				ids = append(ids, h.ID)
				if h.ID == tc.want {
					if res.Total < len(res.Hits) || len(res.Facets["kind"]) == 0 {
						t.Errorf("total %d and facets %v do not cover the hits", res.Total, res.Facets)
					}
					return
				}
			}
			t.Errorf("%q: %s not in the top 10 %v", tc.req.Query, tc.want, ids)
		})
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		k    int
		want int
	}{
		{"karpent", "karpnet", 2, 2},
		{"coredn", "coredn", 1, 0},
		{"abc", "xyz", 1, 2},
	} {
		if got := levenshtein([]rune(tc.a), []rune(tc.b), tc.k); got != tc.want {
			t.Errorf("levenshtein(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.k, got, tc.want)
		}
	}
}
