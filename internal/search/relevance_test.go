package search

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// minMRR is the relevance the search must keep on testdata/relevance.yaml,
// over all queries and over the Korean and mixed ones alone (any query with
// Hangul), of which there must be minKorean. minBestFirst is the share of the symptom queries (those with "best")
// whose first result must be their route's playbook section.
const (
	minMRR       = 0.85
	minKorean    = 40
	minBestFirst = 0.95
)

type relevanceCase struct {
	Query  string   `yaml:"query"`
	Expect []string `yaml:"expect"`
	// Best are the routes whose playbook section answers a symptom query:
	// Result.Best must name one of them and its playbook be the first hit.
	// Their playbooks are the query's expected documents.
	Best []string `yaml:"best"`
}

// relevanceCases reads the relevance set, testdata/relevance.yaml.
func relevanceCases(t *testing.T) []relevanceCase {
	t.Helper()
	data, err := os.ReadFile("testdata/relevance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var cases []relevanceCase
	if err := yaml.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestRelevance scores the search on the relevance set: MRR@10 (the mean of
// 1/rank of the first expected document in the top 10) and hit@3 (the share
// of queries with an expected document in the top 3).
func TestRelevance(t *testing.T) {
	lib := loadLibrary(t)
	cases := relevanceCases(t)
	if len(cases) < 40 {
		t.Errorf("the relevance set has %d queries, want at least 40", len(cases))
	}
	ix := sharedIndex(t)
	cat := loadTriage(t)
	var sumRR, koRR float64
	var symptomRR float64
	var hit3, ko, symptoms, bestFirst int
	var misses []string
	for _, c := range cases {
		for _, route := range c.Best {
			n, ok := cat.Route(route)
			if !ok {
				t.Errorf("%q names route %s, which the triage catalogue does not have", c.Query, route)
				continue
			}
			if !slices.Contains(c.Expect, n.Outcome.Playbook) {
				c.Expect = append(c.Expect, n.Outcome.Playbook)
			}
		}
		for _, id := range c.Expect {
			_, inc := lib.Incident(id)
			_, pb := lib.Playbook(id)
			if !inc && !pb {
				t.Errorf("%q expects %s, which is not in the library", c.Query, id)
			}
		}
		res, err := ix.Search(context.Background(), Request{Query: c.Query, PerPage: 10})
		if err != nil {
			t.Errorf("%q: %v", c.Query, err)
			continue
		}
		rank := 0
		for i, h := range res.Hits {
			if slices.Contains(c.Expect, h.ID) {
				rank = i + 1
				break
			}
		}
		if rank > 0 {
			sumRR += 1 / float64(rank)
		}
		if hasHangul(c.Query) {
			ko++
			if rank > 0 {
				koRR += 1 / float64(rank)
			}
		}
		if rank > 0 && rank <= 3 {
			hit3++
		}
		if len(c.Best) > 0 {
			symptoms++
			if rank > 0 {
				symptomRR += 1 / float64(rank)
			}
			if res.Best != nil && slices.Contains(c.Best, res.Best.Route) && len(res.Hits) > 0 && res.Hits[0].ID == res.Best.Playbook && res.Hits[0].Best {
				bestFirst++
			} else {
				got := "none"
				if res.Best != nil {
					got = res.Best.Route
				}
				misses = append(misses, fmt.Sprintf("  best %-12s %-45q want the section of %v", got, c.Query, c.Best))
			}
		}
		if rank != 1 {
			top := hitIDs(res)[:min(3, len(res.Hits))]
			misses = append(misses, fmt.Sprintf("  rank %2d  %-45q top %v", rank, c.Query, top))
		}
	}
	mrr := sumRR / float64(len(cases))
	t.Logf("relevance over %d queries: MRR@10 %.3f, hit@3 %.3f", len(cases), mrr, float64(hit3)/float64(len(cases)))
	t.Logf("symptom queries whose first result is their route's section: %d of %d (MRR@10 %.3f)", bestFirst, symptoms, symptomRR/float64(max(symptoms, 1)))
	if share := float64(bestFirst) / float64(max(symptoms, 1)); share < minBestFirst {
		t.Errorf("%d of %d symptom queries put their route's section first (%.2f), below %.2f", bestFirst, symptoms, share, minBestFirst)
	}
	if len(misses) > 0 {
		t.Logf("queries whose first hit is not expected (rank 0 = not in the top 10):\n%s", strings.Join(misses, "\n"))
	}
	if mrr < minMRR {
		t.Errorf("MRR@10 %.3f is below %.2f", mrr, minMRR)
	}
	if ko < minKorean {
		t.Errorf("the relevance set has %d Korean or mixed queries, want at least %d", ko, minKorean)
	} else if koMRR := koRR / float64(ko); koMRR < minMRR {
		t.Errorf("MRR@10 over the %d Korean and mixed queries %.3f is below %.2f", ko, koMRR, minMRR)
	} else {
		t.Logf("Korean and mixed queries: %d, MRR@10 %.3f", ko, koMRR)
	}
}
