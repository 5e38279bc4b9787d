package search

import (
	"cmp"
	"slices"

	"github.com/blevesearch/bleve/v2/analysis"
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
func phraseBonus(query analysis.TokenStream, locs []matchLoc, doc func() *document) float64 {
	if len(query) < 2 || len(locs) == 0 {
		return 0
	}
	// The positions of each query token in the "all" field, sorted by
	// segment and position (sorted slices, not sets: maps of maps were a
	// twentieth of an uncached search's garbage).
	var terms []string
	ats := make([][]at, len(query))
	for _, l := range locs {
		if l.field != fieldAll {
			continue
		}
		if !slices.Contains(terms, l.term) {
			terms = append(terms, l.term)
		}
		for i, t := range query {
			if string(t.Term) == l.term {
				ats[i] = append(ats[i], at{l.array, l.pos})
			}
		}
	}
	if len(terms) < 2 {
		return 0
	}
	for _, a := range ats {
		slices.SortFunc(a, compareAt)
	}
	type count struct{ array, n int }
	var adjacent []count
	for i := 1; i < len(query); i++ {
		gap := query[i].Position - query[i-1].Position
		counted := -1 // a segment counts once per pair; positions come by segment
		for _, p := range ats[i-1] {
			if p.array == counted {
				continue
			}
			if _, ok := slices.BinarySearchFunc(ats[i], at{p.array, p.pos + gap}, compareAt); !ok {
				continue
			}
			counted = p.array
			if k := slices.IndexFunc(adjacent, func(c count) bool { return c.array == p.array }); k >= 0 {
				adjacent[k].n++
			} else {
				adjacent = append(adjacent, count{p.array, 1})
			}
		}
	}
	if len(adjacent) == 0 {
		return 0
	}
	segs := doc().field(fieldAll)
	best := 0.0
	for _, c := range adjacent {
		key := ""
		if c.array < len(segs) {
			key = segs[c.array].key
		}
		share := float64(c.n) / float64(len(query)-1)
		best = max(best, share*placeWeight(key))
	}
	return maxPhraseBonus * best
}

// at is a token's place: its segment and its position there.
type at struct{ array, pos int }

func compareAt(a, b at) int {
	if a.array != b.array {
		return cmp.Compare(a.array, b.array)
	}
	return cmp.Compare(a.pos, b.pos)
}
