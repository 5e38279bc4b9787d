package search

import (
	"github.com/blevesearch/bleve/v2/analysis"
	bsearch "github.com/blevesearch/bleve/v2/search"
)

// maxPhraseBonus is the score multiplier, less one, of a document whose
// title holds the query's words in the query's order; other fields earn it
// in proportion to their weight.
const maxPhraseBonus = 0.5

// phraseBonus rewards a document for holding the query's words next to each
// other, as typed: a pasted error message, a symptom named the way a title
// names it. It is the share of the query's adjacent word pairs that appear
// adjacent in the best field, weighted by that field. Computing it from the
// match positions of the top documents replaces a phrase query, which had
// to check positions in every matching document and cost half of a query at
// 10,000 documents.
func phraseBonus(query analysis.TokenStream, locs bsearch.FieldTermLocationMap) float64 {
	if len(query) < 2 || len(locs) == 0 {
		return 0
	}
	best := 0.0
	for _, fb := range fieldBoosts {
		terms := locs[fb.field]
		if len(terms) < 2 {
			continue
		}
		type at struct{ array, pos uint64 }
		has := map[string]map[at]bool{}
		for term, ls := range terms {
			set := map[at]bool{}
			for _, l := range ls {
				var a uint64
				if len(l.ArrayPositions) > 0 {
					a = l.ArrayPositions[0]
				}
				set[at{a, l.Pos}] = true
			}
			has[term] = set
		}
		adjacent := 0
		for i := 1; i < len(query); i++ {
			prev, next := query[i-1], query[i]
			gap := uint64(next.Position - prev.Position)
			for p := range has[string(prev.Term)] {
				if has[string(next.Term)][at{p.array, p.pos + gap}] {
					adjacent++
					break
				}
			}
		}
		share := float64(adjacent) / float64(len(query)-1)
		best = max(best, share*fb.boost/fieldBoosts[0].boost)
	}
	return maxPhraseBonus * best
}
