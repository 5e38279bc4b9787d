package search

import (
	"sort"
	"strings"
)

// help is the zero-result page's advice: the query with its misspelt words
// replaced by the library's nearest words, and each applied filter with the
// number of results the query would have without it. u and sel are nil for
// the empty query (a filtered list).
func (ix *Index) help(filter *docFilter, u *run, sel *selector, uq *userQuery) *Help {
	h := &Help{}
	for i, g := range filter.groups {
		n := 0
		count := func(rank int) {
			if filter.keepWithout(rank, i) && filter.keepKind(rank) {
				n++
			}
		}
		if u == nil {
			for rank := range ix.byRank {
				count(rank)
			}
		} else {
			for _, r := range u.s.cands {
				if sel.pass(u.s.mask[r]) {
					count(int(r))
				}
			}
		}
		h.DropFilters = append(h.DropFilters, DropFilter{Facet: g.facet, Terms: g.terms, Count: n})
	}
	sort.SliceStable(h.DropFilters, func(i, j int) bool { return h.DropFilters[i].Count > h.DropFilters[j].Count })
	if u != nil {
		h.DidYouMean = ix.didYouMean(u, uq)
	}
	if h.DidYouMean == "" && len(h.DropFilters) == 0 {
		return h
	}
	return h
}

// didYouMean replaces each word of the query that the library does not
// hold by the most frequent word within two edits, if any word changes.
func (ix *Index) didYouMean(u *run, uq *userQuery) string {
	changed := false
	out := make([]string, 0, len(uq.words))
	for _, w := range uq.words {
		lw := strings.ToLower(w)
		if hasHangul(w) || letterCount(w) < 4 || ix.hasTerm(fieldWords, lw) {
			out = append(out, w)
			continue
		}
		if toks := ix.english.Analyze([]byte(w)); len(toks) == 1 && ix.hasTerm(fieldAll, string(toks[0].Term)) {
			out = append(out, w)
			continue
		}
		k := 1
		if letterCount(w) >= 7 {
			k = 2
		}
		if near := ix.fuzzyTerms(lw, k); len(near) > 0 {
			out = append(out, near[0])
			changed = true
			continue
		}
		out = append(out, w)
	}
	if !changed {
		return ""
	}
	for _, p := range uq.phrases {
		out = append(out, `"`+p+`"`)
	}
	return strings.Join(out, " ")
}
