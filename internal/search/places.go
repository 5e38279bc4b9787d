package search

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/blevesearch/bleve/v2/analysis"
)

// The places of the query's terms in the documents a search shows, read
// from the forward file (forward.go): highlights and the phrase bonus.

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

// matchLoc is one place where a term of the query matches a document:
// the field, the term as indexed, the segment of the field and the
// token's position and byte offsets in that segment.
type matchLoc struct {
	field, term            string
	array, pos, start, end int
}

// locate finds where the query's terms stand in the documents at ranks,
// for the phrase bonus and highlights: the prose fields' positions from
// the forward file (one block per document), the typo vocabulary's by
// analysing the short fields again. Each document's places come grouped by
// the query's (field, term) pairs in the plan's order, each group in the
// document's order.
func (ix *Index) locate(p *plan, ranks []int, doc func(rank int) *document) (map[int][]matchLoc, error) {
	out := make(map[int][]matchLoc, len(ranks))
	// The query's terms of each prose field, with their numbers.
	type qterm struct {
		term string
		id   uint32
	}
	var qs [numProse][]qterm
	var order []struct{ field, q int } // the pairs in the plan's order
	typos := map[string]bool{}
	for _, l := range ix.placedLeaves(p) {
		if !l.positions {
			continue
		}
		if l.field == fieldWords {
			for _, tok := range l.tokens {
				typos[tok] = true
			}
			continue
		}
		f, ok := memFieldOf(l.field)
		if !ok || !f.prose() {
			continue
		}
		fi, pf := int(f-memAll), &ix.mem.fields[f]
	tokens:
		for _, tok := range l.tokens {
			for _, q := range qs[fi] {
				if q.term == tok {
					continue tokens
				}
			}
			t, ok := pf.lookup(tok)
			if !ok {
				continue
			}
			qs[fi] = append(qs[fi], qterm{tok, pf.ids[t]})
			order = append(order, struct{ field, q int }{fi, len(qs[fi]) - 1})
		}
	}
	if len(order) > 0 {
		var found [numProse][][]matchLoc
		for fi := range qs {
			found[fi] = make([][]matchLoc, len(qs[fi]))
		}
		for _, rank := range ranks {
			block, err := ix.placedBlock(rank)
			if err != nil {
				return nil, err
			}
			n := 0
			for fi := range qs {
				for i := range found[fi] {
					found[fi][i] = found[fi][i][:0]
				}
				if len(qs[fi]) == 0 {
					continue
				}
				field, err := fwdFieldOf(block, fi)
				if err != nil {
					return nil, fmt.Errorf("%w (%s)", err, ix.byRank[rank].id())
				}
				// Only the query's terms' places are decoded.
				for {
					id, places, ok, err := field.next()
					if err != nil {
						return nil, fmt.Errorf("%w (%s)", err, ix.byRank[rank].id())
					}
					if !ok {
						break
					}
					for qi, q := range qs[fi] {
						if uint64(q.id) != id {
							continue
						}
						it := fwdPlaces{b: places}
						for it.next() {
							c := it.cur
							found[fi][qi] = append(found[fi][qi], matchLoc{field: proseFields[fi], term: q.term,
								array: c.segment, pos: c.pos, start: c.start, end: c.end})
							n++
						}
						if it.err {
							return nil, fmt.Errorf("%w (%s)", errFwdFile, ix.byRank[rank].id())
						}
					}
				}
			}
			if n == 0 {
				continue
			}
			locs := make([]matchLoc, 0, n)
			for _, o := range order {
				locs = append(locs, found[o.field][o.q]...)
			}
			out[rank] = locs
		}
	}
	if len(typos) > 0 {
		for _, rank := range ranks {
			out[rank] = ix.locateTypos(doc(rank), typos, out[rank])
		}
	}
	return out, nil
}

// placedLeaves are the leaves whose places highlights show: the words',
// then the quoted phrases' words.
func (ix *Index) placedLeaves(p *plan) []leaf {
	var leaves []leaf
	for _, w := range p.words {
		leaves = append(leaves, w.leaves...)
	}
	for _, ph := range p.phrases {
		leaves = append(leaves, ix.englishLeaves(ph, 1)...)
		leaves = append(leaves, ix.koreanLeaves(ph)...)
	}
	return leaves
}

// locateTypos finds the typo vocabulary's terms in the short fields of d,
// which the memory fields hold without positions: a few titles and
// summaries analysed again cost less than positions for every document.
// It appends them to locs.
func (ix *Index) locateTypos(d *document, terms map[string]bool, locs []matchLoc) []matchLoc {
	for i, toks := range d.wordTokens(ix.words) {
		for _, t := range toks {
			if terms[t.term] {
				locs = append(locs, matchLoc{field: fieldWords, term: t.term, array: i, pos: t.pos, start: t.start, end: t.end})
			}
		}
	}
	return locs
}
