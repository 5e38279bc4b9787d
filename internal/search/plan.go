package search

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Field weights. The title names the symptom or the incident in a few words;
// summaries and playbook signals are dense; "all" holds the body prose and,
// again, the short fields, so a title word counts there too; code blocks
// repeat the same kubectl lines everywhere.
var fieldBoosts = []struct {
	field string
	boost float64
}{
	{fieldTitle, 3},
	{fieldSummary, 1.5},
	{fieldSignals, 1.5},
	{fieldOrgText, 2},
	{fieldSources, 0.6},
	{fieldAll, 1},
	{fieldCode, 0.5},
}

const (
	boostIdent     = 3    // an identifier typed exactly
	boostKorean    = 1.2  // Korean prose: a Korean word is found only there
	boostKoTitle   = 2.5  // Korean titles and summaries
	boostLatinInKo = 0.3  // an English word inside Korean prose
	boostGloss     = 0.85 // an English rendering of a Korean word
	boostFuzzy     = 0.3  // a typo match is worth less than any exact match
	boostTerm      = 1.2  // a document classified under a term the query names
	maxTermBoost   = 2    // ... growing with the words of the name, up to this
	tieBreaker     = 0.2  // share of the other fields' scores a word keeps besides its best field
	maxFuzzyTerms  = 12   // typo neighbours looked up per word
	coordPower     = 2.0  // how hard a missing word costs (see coord)
	phraseWeight   = 1.5  // a quoted phrase counts like a rare word
	minWordWeight  = 0.05 // a very common word still counts a little for coordination
)

// leaf is one way a query word can match: every token of tokens in field.
type leaf struct {
	field  string
	tokens []string
	boost  float64
	// positions: the forward file keeps the places of the leaf's field,
	// which highlights read (see locate).
	positions bool
}

// facetLeaf is a taxonomy term a word names: the documents classified
// under it match the word.
type facetLeaf struct {
	value int32 // in the facet table
	boost float64
}

// qword is one word (or Korean expression) of a query with every way it
// can match. A document matches the word when any leaf or facet leaf
// matches; the word's score is its best leaf plus tieBreaker times the rest.
type qword struct {
	text        string
	leaves      []leaf
	facets      []facetLeaf
	significant bool // required in the strict tier; counted for coordination
}

// plan is a parsed query turned into words with their leaves.
type plan struct {
	words   []qword
	phrases []string
	tokens  analysis.TokenStream // the loose text, analysed, for the phrase bonus
	named   []termMatch          // taxonomy terms the query names
	exact   int                  // rank of a document whose id is the query, or -1
	// english is the query with Korean expressions the glossary knows and
	// misspelt words replaced by their English and their nearest word, for
	// the classifier (best.go); "" when it is the query as typed.
	english string
	best    int // rank of the playbook that answers the query's route, or -1
	// korean are the query's Hangul words without their particles, in
	// words and phrases: a Korean highlight must hold one whole.
	korean []string
}

// plan builds the words of q: each typed word split by script and stripped
// of particles, Korean expressions the glossary knows joined with their
// English renderings, taxonomy terms the words name, identifiers and typo
// neighbours.
func (ix *Index) plan(q *userQuery) *plan {
	p := &plan{phrases: q.phrases, exact: ix.exactRank(q), best: -1}
	var words []string
	seen := map[string]bool{}
	for _, typed := range q.words {
		for _, w := range queryWords(typed) {
			if k := strings.ToLower(w); !seen[k] {
				seen[k] = true
				words = append(words, w)
			}
		}
	}
	for _, w := range words {
		if hasHangul(w) {
			p.korean = append(p.korean, w)
		}
	}
	for _, ph := range q.phrases {
		for _, typed := range strings.Fields(ph) {
			for _, w := range queryWords(typed) {
				if hasHangul(w) {
					p.korean = append(p.korean, w)
				}
			}
		}
	}
	p.tokens = ix.english.Analyze([]byte(strings.Join(words, " ")))
	// Slots: a word, or a Korean expression of several words the glossary
	// knows ("안 보임"), with its English rendering for taxonomy matching.
	gloss := ix.glossary.spans(words)
	type slot struct {
		text, english string
		renderings    []string
	}
	var slots []slot
	for i := 0; i < len(words); i++ {
		sl := slot{text: words[i], english: words[i]}
		if g, ok := gloss[i]; ok {
			sl.text = strings.Join(words[i:g.end], " ")
			sl.english, sl.renderings = g.english[0], g.english
			i = g.end - 1
		}
		slots = append(slots, sl)
	}
	orig, eng := make([]string, len(slots)), make([]string, len(slots))
	for i, sl := range slots {
		orig[i], eng[i] = sl.text, sl.english
	}
	terms := ix.termLeaves(orig)
	for i, ts := range ix.termLeaves(eng) {
		for _, t := range ts {
			if !slices.ContainsFunc(terms[i], func(x namedTerm) bool { return x.Facet == t.Facet && x.ID == t.ID }) {
				terms[i] = append(terms[i], t)
			}
		}
	}
	p.named = ix.matcher.matches(normalWords(strings.Join(orig, " ")))
	for _, tm := range ix.matcher.matches(normalWords(strings.Join(eng, " "))) {
		if !slices.ContainsFunc(p.named, func(x termMatch) bool { return x.term == tm.term }) {
			p.named = append(p.named, tm)
		}
	}
	english := make([]string, len(slots))
	for i, sl := range slots {
		english[i] = sl.english
		if len(sl.renderings) == 0 {
			if f := ix.spellingDistance(sl.text); f > 0 {
				if ts := ix.fuzzyTerms(strings.ToLower(sl.text), f); len(ts) > 0 {
					english[i] = ts[0]
				}
			}
		}
		var qw qword
		if strings.Contains(sl.text, " ") {
			qw = qword{text: sl.text, significant: true, leaves: ix.koreanLeaves(sl.text)}
			qw.facets = appendFacets(qw.facets, ix, terms[i])
		} else {
			qw = ix.word(sl.text, terms[i])
		}
		for _, e := range sl.renderings {
			qw.leaves = append(qw.leaves, ix.englishLeaves(e, boostGloss)...)
		}
		if len(sl.renderings) > 0 && !koreanStopWords[sl.text] {
			qw.significant = true
		}
		if len(qw.leaves) > 0 || len(qw.facets) > 0 {
			p.words = append(p.words, qw)
		}
	}
	if len(p.words) > maxWordsMatched {
		p.words = p.words[:maxWordsMatched]
	}
	if e := strings.Join(english, " "); e != strings.Join(words, " ") {
		p.english = e
	}
	return p
}

func appendFacets(out []facetLeaf, ix *Index, terms []namedTerm) []facetLeaf {
	for _, t := range terms {
		if v, ok := ix.facets.index[string(t.Facet)+"\x00"+t.ID]; ok {
			out = append(out, facetLeaf{value: v, boost: t.boost})
		}
	}
	return out
}

// word builds the leaves of one word.
func (ix *Index) word(w string, terms []namedTerm) qword {
	qw := qword{text: w}
	qw.facets = appendFacets(qw.facets, ix, terms)
	if hasHangul(w) {
		qw.leaves = append(qw.leaves, ix.koreanLeaves(w)...)
		qw.significant = len(qw.leaves) > 0 && len([]rune(w)) >= 2 && !koreanStopWords[w]
	} else {
		qw.leaves = append(qw.leaves, ix.englishLeaves(w, 1)...)
		qw.significant = len(qw.leaves) > 0 && letterCount(w) > 0
		if lw := strings.ToLower(strings.Trim(w, ".,;:!?()[]{}'\"")); lw != "" && letterCount(lw) > 0 {
			qw.leaves = append(qw.leaves, leaf{field: fieldKorean, tokens: []string{lw}, boost: boostLatinInKo, positions: true})
		}
	}
	if id := trimIdent(w); isIdentifier(id) {
		qw.leaves = append(qw.leaves, leaf{field: fieldIdent, tokens: []string{strings.ToLower(id)}, boost: boostIdent})
		qw.significant = true
	}
	if f := ix.fuzziness(w); f > 0 {
		for _, t := range ix.fuzzyTerms(strings.ToLower(w), f) {
			qw.leaves = append(qw.leaves, leaf{field: fieldWords, tokens: []string{t}, boost: boostFuzzy, positions: true})
		}
	}
	return qw
}

// englishLeaves are the leaves of English text e (a word, or a short
// phrase from the glossary) in every English field.
func (ix *Index) englishLeaves(e string, scale float64) []leaf {
	toks := ix.english.Analyze([]byte(e))
	if len(toks) == 0 {
		return nil
	}
	terms := make([]string, len(toks))
	for i, t := range toks {
		terms[i] = string(t.Term)
	}
	out := make([]leaf, 0, len(fieldBoosts))
	for _, fb := range fieldBoosts {
		out = append(out, leaf{field: fb.field, tokens: terms, boost: fb.boost * scale,
			positions: fb.field == fieldAll || fb.field == fieldCode})
	}
	return out
}

// koreanLeaves are the leaves of a Korean word in the Korean fields.
func (ix *Index) koreanLeaves(w string) []leaf {
	toks := ix.korean.Analyze([]byte(w))
	if len(toks) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var terms []string
	for _, t := range toks {
		if s := string(t.Term); !seen[s] {
			seen[s] = true
			terms = append(terms, s)
		}
	}
	return []leaf{
		{field: fieldKoTitle, tokens: terms, boost: boostKoTitle},
		{field: fieldKorean, tokens: terms, boost: boostKorean, positions: true},
	}
}

// namedTerm is a taxonomy term a query word is part of the name of.
type namedTerm struct {
	Facet string
	ID    string
	boost float64
}

// termLeaves finds the taxonomy terms the words name and returns, for each
// word, the terms whose name covers it. A longer name is stronger evidence,
// so its boost grows with its length.
func (ix *Index) termLeaves(words []string) [][]namedTerm {
	var normal []string
	var owner []int
	for i, w := range words {
		for _, n := range normalWords(w) {
			normal = append(normal, n)
			owner = append(owner, i)
		}
	}
	out := make([][]namedTerm, len(words))
	for _, tm := range ix.matcher.matches(normal) {
		boost := min(boostTerm*(1+0.2*float64(tm.end-tm.start-1)), maxTermBoost)
		last := -1
		for k := tm.start; k < tm.end; k++ {
			if i := owner[k]; i != last {
				last = i
				out[i] = append(out[i], namedTerm{string(tm.term.Facet), tm.term.ID, boost})
			}
		}
	}
	return out
}

// minShould is how many of n significant words a document must match in
// the middle tier: all of one or two words, then all but a third, so that
// one word the documents phrase differently ("present" in "GPU node present
// but workload not scheduled") does not hide the answer.
func minShould(n int) int {
	if n <= 2 {
		return n
	}
	return n - n/3
}

// fuzziness is the edit distance allowed for w: none for short words (too
// many neighbours), for Korean (a one-syllable edit is a different word) and
// for words the library contains, as typed in a title, summary or signal or
// in any form in the text, so a typo match can never compete with an exact
// one; 1 from five letters, 2 from eight, where a swapped pair of letters
// ("Karpneter") costs two edits.
func (ix *Index) fuzziness(w string) int {
	k := ix.spellingDistance(w)
	if toks := ix.english.Analyze([]byte(w)); k > 0 && len(toks) == 1 && ix.hasTerm(fieldAll, string(toks[0].Term)) {
		return 0
	}
	return k
}

// spellingDistance is fuzziness without the stems: a misspelling that stems
// like a word of the text ("oomkiled", "oomkilled") is matched by the stem,
// but only its spelling in the typo vocabulary names a term or a message
// (the query's English rendering, for the router).
func (ix *Index) spellingDistance(w string) int {
	n := letterCount(w)
	if n < 5 || n != len([]rune(w)) || hasHangul(w) || ix.hasTerm(fieldWords, strings.ToLower(w)) {
		return 0
	}
	if n >= 8 {
		return 2
	}
	return 1
}

// hasTerm reports whether the index holds term in field; every field's
// vocabulary is in the memory fields.
func (ix *Index) hasTerm(field, term string) bool {
	f, ok := memFieldOf(field)
	return ok && ix.mem.has(f, term)
}

// fuzzyTerms lists the typo vocabulary's terms within k edits of w, the
// most frequent first, at most maxFuzzyTerms. Callers must not modify the
// list: it is shared through the index's neighbour cache (doccache.go).
func (ix *Index) fuzzyTerms(w string, k int) []string {
	return ix.typos.get(w+"\x00"+strconv.Itoa(k), func() []string { return ix.findFuzzyTerms(w, k) })
}

func (ix *Index) findFuzzyTerms(w string, k int) []string {
	cs := ix.mem.fuzzy(w, k, 4096)
	sort.Slice(cs, func(i, j int) bool { return cs[i].n > cs[j].n || cs[i].n == cs[j].n && cs[i].term < cs[j].term })
	var out []string
	for _, c := range cs[:min(len(cs), maxFuzzyTerms)] {
		out = append(out, c.term)
	}
	return out
}
