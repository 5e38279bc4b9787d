package search

import (
	"sort"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"

	"casebook/internal/library"
)

// maxSuggestions bounds the suggested-filters box; a long pasted message can
// name a dozen terms and the box is for the few the user most likely meant.
const maxSuggestions = 8

// suggestFacetOrder breaks ties between terms named by the same words:
// symptoms and components are what people search by.
var suggestFacetOrder = map[library.Facet]int{
	library.FacetSymptom: 0, library.FacetComponent: 1, library.FacetCause: 2,
	library.FacetCauseCategory: 3, library.FacetFactor: 4, library.FacetDomain: 5,
}

// Matcher finds the taxonomy terms a query names. It is built once per
// taxonomy and is safe for concurrent use.
type Matcher struct {
	phrases []phrase
	// starts lists, for each word a name can start with (its first word,
	// or its compact Korean form), the names that do, by position in
	// phrases: a query word is compared with those names only, not with
	// every name of the taxonomy.
	starts map[string][]int32
}

// phrase is one name of a term (label, Korean label, alias or id) as
// normalised words.
type phrase struct {
	words   []string
	compact string // Korean names without spaces, for "노드자동복구"
	term    *library.Term
}

// termMatch is a term named by query words [start, end).
type termMatch struct {
	term       *library.Term
	start, end int
}

// NewMatcher prepares the names of every term of tax for matching.
func NewMatcher(tax *library.Taxonomy) *Matcher {
	m := &Matcher{}
	for _, f := range library.Facets {
		for _, t := range tax.Terms(f) {
			names := append([]string{t.Label, t.LabelKo, strings.ReplaceAll(t.ID, "-", " ")}, t.Aliases...)
			seen := map[string]bool{}
			for _, n := range names {
				words := normalWords(n)
				key := strings.Join(words, " ")
				if len(words) == 0 || seen[key] {
					continue
				}
				seen[key] = true
				p := phrase{words: words, term: t}
				if hasHangul(n) && len(words) > 1 {
					p.compact = strings.Join(words, "")
				}
				m.phrases = append(m.phrases, p)
			}
		}
	}
	m.starts = map[string][]int32{}
	for i, p := range m.phrases {
		m.starts[p.words[0]] = append(m.starts[p.words[0]], int32(i))
		if p.compact != "" && p.compact != p.words[0] {
			m.starts[p.compact] = append(m.starts[p.compact], int32(i))
		}
	}
	return m
}

// Suggest returns the taxonomy terms that query names by label or alias,
// English or Korean, as filters to offer. It needs no index.
func Suggest(tax *library.Taxonomy, query string) []Suggestion {
	return NewMatcher(tax).Suggest(query)
}

// Suggest returns the terms named in query, in the order the query names
// them; when several terms share words the longer name comes first.
func (m *Matcher) Suggest(query string) []Suggestion {
	var out []Suggestion
	for _, tm := range m.matches(normalWords(query)) {
		out = append(out, Suggestion{Facet: tm.term.Facet, Term: tm.term.ID, Label: tm.term.Label, LabelKo: tm.term.LabelKo})
		if len(out) == maxSuggestions {
			break
		}
	}
	return out
}

// matches finds every term named in the query words, one match per term.
func (m *Matcher) matches(words []string) []termMatch {
	// Each term keeps its longest match; of two equally long ones, the
	// one of the earlier name, then the earlier word (the order in which
	// trying every name at every word found them).
	type found struct {
		termMatch
		name int
	}
	best := map[*library.Term]found{}
	for i, w := range words {
		for _, n := range m.starts[w] {
			p := m.phrases[n]
			end := matchAt(p, words, i)
			if end < 0 {
				continue
			}
			prev, ok := best[p.term]
			if l, pl := end-i, prev.end-prev.start; !ok || l > pl || l == pl && int(n) < prev.name {
				best[p.term] = found{termMatch{term: p.term, start: i, end: end}, int(n)}
			}
		}
	}
	out := make([]termMatch, 0, len(best))
	for _, f := range best {
		out = append(out, f.termMatch)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.start != b.start:
			return a.start < b.start
		case a.end-a.start != b.end-b.start:
			return a.end-a.start > b.end-b.start
		case a.term.Facet != b.term.Facet:
			return suggestFacetOrder[a.term.Facet] < suggestFacetOrder[b.term.Facet]
		}
		return a.term.ID < b.term.ID
	})
	return out
}

// matchAt returns the end of the match of p at query word i, or -1.
func matchAt(p phrase, words []string, i int) int {
	if p.compact != "" && sameWord(p.compact, words[i]) {
		return i + 1
	}
	if i+len(p.words) > len(words) {
		return -1
	}
	for j, w := range p.words {
		if !sameWord(w, words[i+j]) {
			return -1
		}
	}
	return i + len(p.words)
}

// sameWord compares a word of a term's name with a query word; both went
// through normalWords, which strips Korean particles on both sides.
func sameWord(name, query string) bool { return name == query }

var pluralStemmer = en.NewEnglishPluralStemmerFilter()

// normalWords splits s into lower-case words of letters and digits, with
// English plurals reduced to the singular and Korean words split from
// attached English ("GPU가") and stripped of particles ("노드가"). Punctuation separates words, so
// "nvidia.com/gpu" is three words on both sides of the comparison, and only
// plurals are folded because full stemming would equate "scheduled" with
// "scheduler" and suggest the wrong component.
func normalWords(s string) []string {
	var fields []string
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		fields = append(fields, queryWords(f)...)
	}
	stream := make(analysis.TokenStream, 0, len(fields))
	for _, f := range fields {
		stream = append(stream, &analysis.Token{Term: []byte(f)})
	}
	out := make([]string, len(stream))
	for i, t := range pluralStemmer.Filter(stream) {
		out[i] = string(t.Term)
	}
	return out
}
