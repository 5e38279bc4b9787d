package search

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestHangulNamesFindTheirCases: organisation and product names typed in
// Hangul (the taxonomy's names) find what the name in Latin letters finds,
// and the organisation's cases among the first results.
func TestHangulNamesFindTheirCases(t *testing.T) {
	lib := loadLibrary(t)
	ix := sharedIndex(t)
	for _, c := range []struct {
		query, english, org string
		within              int
	}{
		{"리노드", "Linode", "Linode", 3},
		{"깃허브 장애", "GitHub outage", "GitHub", 10},
		{"깃허브", "GitHub", "GitHub", 10},
		{"구글", "Google", "Google Cloud", 10},
		{"카펜터", "Karpenter", "Karpenter", 10},
		{"엔비디아 디바이스 플러그인", "NVIDIA device plugin", "NVIDIA device plugin", 10},
	} {
		ids := func(q string) []string {
			res, err := ix.Search(context.Background(), Request{Query: q, Kind: KindIncident, PerPage: c.within})
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			return hitIDs(res)
		}
		got, want := ids(c.query), ids(c.english)
		for _, in := range lib.Incidents {
			if !strings.HasPrefix(in.Organization, c.org) {
				continue
			}
			if slices.Contains(want, in.ID) && !slices.Contains(got, in.ID) {
				t.Errorf("%q misses %s, which %q finds", c.query, in.ID, c.english)
			}
			if !slices.Contains(got, in.ID) {
				t.Errorf("%q: %s (%s) is not among the first %d", c.query, in.ID, in.Organization, c.within)
			}
		}
	}
}
