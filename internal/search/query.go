package search

import (
	"context"
	"math"
	"strings"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Field weights. The title names the symptom or the incident in a few words;
// summaries and playbook signals are dense; code blocks repeat the same
// kubectl lines everywhere.
var fieldBoosts = []struct {
	field string
	boost float64
}{
	{fieldTitle, 3},
	{fieldSummary, 1.5},
	{fieldSignals, 1.5},
	{fieldOrgText, 2},
	{fieldBody, 1},
	{fieldSources, 0.6},
	{fieldCode, 0.5},
}

const (
	boostIdent   = 3   // an identifier typed exactly
	boostKorean  = 2   // Korean prose is rare, so a match in it is telling
	boostFuzzy   = 0.3 // a typo match is worth less than any exact match
	boostPhrase  = 1.5 // the whole query as a phrase, per field weight
	boostTerm    = 1.2 // a document classified under a term the query names
	maxTermBoost = 2   // ... growing with the words of the name, up to this
	tieBreaker   = 0.2 // share of the other fields' scores a word keeps besides its best field
)

// textQuery turns a parsed query into a bleve query.
//
// Each word becomes one clause scored by its best field (dis-max), so a word
// that appears in the title and the body is not counted twice. A word that
// is part of a taxonomy term's name also matches every document classified
// under that term: "toleration" finds incidents filed under
// untolerated-taint that never use the word. Most of the words must match
// (see minShould), quoted phrases must match, and the whole query as a
// phrase adds to the score. relaxed drops the word minimum to one, for a
// second try when the strict query finds nothing.
func (ix *Index) textQuery(q *userQuery, relaxed bool) query.Query {
	terms := ix.termLeaves(q.words)
	var words []query.Query
	required := 0
	for i, w := range q.words {
		c, significant := ix.wordClause(w, terms[i])
		if c == nil {
			continue
		}
		words = append(words, c)
		if significant {
			required++
		}
	}

	var must []query.Query
	if len(words) > 0 {
		d := query.NewDisjunctionQuery(words)
		if relaxed {
			d.SetMin(1)
		} else {
			d.SetMin(float64(minShould(required)))
		}
		must = append(must, d)
	}
	for _, p := range q.phrases {
		must = append(must, ix.phraseClause(p, 1))
	}
	if len(must) == 0 {
		return query.NewMatchNoneQuery()
	}
	b := query.NewBooleanQuery(must, nil, nil)
	if len(words) > 1 {
		b.AddShould(ix.phraseClause(q.loose, boostPhrase))
	}
	return b
}

// termLeaves finds the taxonomy terms the words name and returns, for each
// word, a query for the documents classified under each term whose name
// covers it. A longer name is stronger evidence, so its boost grows with
// its length.
func (ix *Index) termLeaves(words []string) [][]query.Query {
	var normal []string
	var owner []int
	for i, w := range words {
		for _, n := range normalWords(w) {
			normal = append(normal, n)
			owner = append(owner, i)
		}
	}
	out := make([][]query.Query, len(words))
	for _, tm := range ix.matcher.matches(normal) {
		boost := min(boostTerm*(1+0.2*float64(tm.end-tm.start-1)), maxTermBoost)
		last := -1
		for k := tm.start; k < tm.end; k++ {
			if i := owner[k]; i != last {
				last = i
				t := query.NewTermQuery(tm.term.ID)
				t.SetField(string(tm.term.Facet))
				t.SetBoost(boost)
				out[i] = append(out[i], t)
			}
		}
	}
	return out
}

// minShould is how many of n significant words a document must match: all
// of one or two words, then all but a third, so that one word the documents
// phrase differently ("present" in "GPU node present but workload not
// scheduled") does not hide the answer.
func minShould(n int) int {
	if n <= 2 {
		return n
	}
	return n - n/3
}

// wordClause matches one word in every field, and through terms, in the
// classification. It reports whether the word is significant: stop words
// and numbers may match but are not required. It returns nil for a word
// nothing can match.
func (ix *Index) wordClause(w string, terms []query.Query) (query.Query, bool) {
	leaves := terms
	significant := false
	if hasHangul(w) {
		m := query.NewMatchQuery(w)
		m.SetField(fieldKorean)
		m.SetBoost(boostKorean)
		leaves = append(leaves, m)
		significant = true
	} else if len(ix.english.Analyze([]byte(w))) > 0 {
		for _, fb := range fieldBoosts {
			m := query.NewMatchQuery(w)
			m.SetField(fb.field)
			m.SetBoost(fb.boost)
			// All tokens of one typed word must match: nvidia.com/gpu is
			// "nvidia.com" and "gpu" to the analyzer, and either alone is
			// not what the user asked for.
			m.SetOperator(query.MatchQueryOperatorAnd)
			leaves = append(leaves, m)
		}
		significant = letterCount(w) > 0
	}
	if id := trimIdent(w); isIdentifier(id) {
		t := query.NewTermQuery(strings.ToLower(id))
		t.SetField(fieldIdent)
		t.SetBoost(boostIdent)
		leaves = append(leaves, t)
		significant = true
	}
	if f := ix.fuzziness(w); f > 0 {
		fz := query.NewMatchQuery(w)
		fz.SetField(fieldWords)
		fz.SetFuzziness(f)
		fz.SetBoost(boostFuzzy)
		leaves = append(leaves, fz)
	}
	if len(leaves) == 0 {
		return nil, false
	}
	return combine(tieBreaker, leaves...), significant
}

// fuzziness is the edit distance allowed for w: none for short words (too
// many neighbours) and none for words the library contains, as typed in a
// title, summary or label or in any form in the body, so a typo match can
// never compete with an exact one; 1 from five letters, 2 from eight, where
// a swapped pair of letters ("Karpneter") costs two edits.
func (ix *Index) fuzziness(w string) int {
	n := letterCount(w)
	if n < 5 || n != len([]rune(w)) {
		return 0
	}
	if ix.hasTerm(fieldWords, strings.ToLower(w)) {
		return 0
	}
	if toks := ix.english.Analyze([]byte(w)); len(toks) == 1 && ix.hasTerm(fieldBody, string(toks[0].Term)) {
		return 0
	}
	if n >= 8 {
		return 2
	}
	return 1
}

// hasTerm reports whether the index holds term in field.
func (ix *Index) hasTerm(field, term string) bool {
	d, err := ix.bleve.FieldDictRange(field, []byte(term), []byte(term))
	if err != nil {
		return false
	}
	defer d.Close()
	e, err := d.Next()
	return err == nil && e != nil && e.Term == term
}

// phraseClause matches p as a phrase in any text field.
func (ix *Index) phraseClause(p string, boost float64) query.Query {
	var leaves []query.Query
	if hasHangul(p) {
		m := query.NewMatchPhraseQuery(p)
		m.SetField(fieldKorean)
		m.SetBoost(boost * boostKorean)
		leaves = append(leaves, m)
	}
	for _, fb := range fieldBoosts {
		m := query.NewMatchPhraseQuery(p)
		m.SetField(fb.field)
		m.SetBoost(boost * fb.boost)
		leaves = append(leaves, m)
	}
	return combine(tieBreaker, leaves...)
}

// combine scores a disjunction as its best clause plus tie times the rest.
// bleve's own disjunction multiplies the sum by the share of clauses that
// matched, which for one word searched in eight fields would reward
// appearing in many fields far more than appearing in the title; tie 1
// gives a plain sum without that factor.
func combine(tie float64, qs ...query.Query) query.Query {
	if len(qs) == 1 {
		return qs[0]
	}
	d := query.NewDisjunctionQuery(qs)
	d.RetrieveScoreBreakdown(true)
	return query.NewCustomScoreQueryWithScorer(d, func(_ context.Context, m *bsearch.DocumentMatch) (float64, error) {
		best, sum := 0.0, 0.0
		for _, s := range m.ScoreBreakdown {
			best = math.Max(best, s)
			sum += s
		}
		// The match may become a clause of an enclosing combine, which
		// writes its breakdown into this same map.
		clear(m.ScoreBreakdown)
		return best + tie*(sum-best), nil
	}, nil, nil)
}
