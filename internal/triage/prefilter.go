package triage

import "strings"

// lineFilter finds, in one pass over a line, the line signals that may
// match it: every signal's regex needs one of a few literals (Signal.anchor,
// Signal.anyOf or its Text), and the filter indexes those literals by their
// first two bytes. Checking 200-odd signals' literals one by one on every
// line of a long paste cost more than the regexes themselves.
type lineFilter struct {
	byPair map[uint16][]filterEntry
	// always lists signals without a usable literal; they are tried on
	// every line.
	always []int
	n      int
}

type filterEntry struct {
	lit string
	sig int // index into Catalog.Signals
}

func newLineFilter(sigs []*Signal) *lineFilter {
	f := &lineFilter{byPair: map[uint16][]filterEntry{}, n: len(sigs)}
	for i, s := range sigs {
		if s.Scope != ScopeLine {
			continue
		}
		lits := s.literals()
		usable := lits != nil
		for _, l := range lits {
			if len(l) < 2 {
				usable = false
			}
		}
		if !usable {
			f.always = append(f.always, i)
			continue
		}
		for _, l := range lits {
			k := uint16(l[0])<<8 | uint16(l[1])
			f.byPair[k] = append(f.byPair[k], filterEntry{lit: l, sig: i})
		}
	}
	return f
}

// literals returns the lower-case literals one of which every match of the
// signal contains, or nil when there are none.
func (s *Signal) literals() []string {
	switch {
	case s.re == nil:
		return []string{s.lit}
	case s.anchor != "":
		return []string{s.anchor}
	default:
		return s.anyOf
	}
}

// candidates marks in cand (len(Catalog.Signals), all false on entry) the
// signals whose literals occur in lower, and returns their indexes in
// ascending order; cand is left set for the caller to clear.
func (f *lineFilter) candidates(lower string, cand []bool, out []int) []int {
	out = append(out[:0], f.always...)
	for _, i := range f.always {
		cand[i] = true
	}
	for p := 0; p+1 < len(lower); p++ {
		for _, e := range f.byPair[uint16(lower[p])<<8|uint16(lower[p+1])] {
			if !cand[e.sig] && strings.HasPrefix(lower[p:], e.lit) {
				cand[e.sig] = true
				out = append(out, e.sig)
			}
		}
	}
	sortInts(out)
	return out
}

// sortInts is an insertion sort: the candidate lists are short.
func sortInts(a []int) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
