package search

import (
	"github.com/blevesearch/bleve/v2/analysis"
	bsearch "github.com/blevesearch/bleve/v2/search"
)

// maxPhraseBonus is the score multiplier, less one, of a document whose
// title holds the query's words in the query's order; other places earn it
// in proportion to their weight.
const maxPhraseBonus = 0.5

// placeWeight is the weight of a place of the "all" field, by the key of
// its segment, relative to the title.
func placeWeight(key string) float64 {
	switch key {
	case "title":
		return 1
	case "summary", "signals":
		return 0.5
	case "":
		return 2.0 / 3 // the organisation
	}
	return 1.0 / 3
}

// phraseBonus rewards a document for holding the query's words next to each
// other, as typed: a pasted error message, a symptom named the way a title
// names it. It is the share of the query's adjacent word pairs that appear
// adjacent in the best place (the title, the summary, a body section: a
// segment of the "all" field), weighted by that place. Computing it from the
// match positions of the top documents replaces a phrase query, which had
// to check positions in every matching document.
func phraseBonus(query analysis.TokenStream, locs bsearch.FieldTermLocationMap, doc func() *document) float64 {
	if len(query) < 2 || len(locs) == 0 {
		return 0
	}
	terms := locs[fieldAll]
	if len(terms) < 2 {
		return 0
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
	adjacent := map[uint64]int{}
	for i := 1; i < len(query); i++ {
		prev, next := query[i-1], query[i]
		gap := uint64(next.Position - prev.Position)
		seen := map[uint64]bool{}
		for p := range has[string(prev.Term)] {
			if !seen[p.array] && has[string(next.Term)][at{p.array, p.pos + gap}] {
				seen[p.array] = true
				adjacent[p.array]++
			}
		}
	}
	if len(adjacent) == 0 {
		return 0
	}
	segs := doc().text[fieldAll]
	best := 0.0
	for array, n := range adjacent {
		key := ""
		if int(array) < len(segs) {
			key = segs[array].key
		}
		share := float64(n) / float64(len(query)-1)
		best = max(best, share*placeWeight(key))
	}
	return maxPhraseBonus * best
}
