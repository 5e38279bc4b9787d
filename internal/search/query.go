package search

import (
	"context"
	"math"
	"strings"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Field weights. The title names the symptom or the incident in a few words;
// summaries and playbook signals are dense; taxonomy labels widen recall but
// are shared by many documents; code blocks repeat the same kubectl lines
// everywhere.
var fieldBoosts = []struct {
	field string
	boost float64
}{
	{fieldTitle, 3},
	{fieldSummary, 1.5},
	{fieldSignals, 1.5},
	{fieldLabels, 1.2},
	{fieldOrgText, 2},
	{fieldBody, 1},
	{fieldSources, 0.6},
	{fieldCode, 0.5},
}

const (
	boostIdent   = 3   // an identifier typed exactly
	boostKorean  = 2   // Korean matches only taxonomy names and Korean titles
	boostFuzzy   = 0.3 // a typo match is worth less than any exact match
	boostPhrase  = 1.5 // the whole query as a phrase, per field weight
	boostTerm    = 1.5 // a document classified under a term the query names, per word of the name
	maxTermWords = 3
	tieBreaker   = 0.2 // share of the other fields' scores a word keeps besides its best field
)

// textQuery turns a parsed query into a bleve query.
//
// Each word becomes one clause scored by its best field (dis-max), so a word
// that appears in the title and the body is not counted twice; most of the
// words must match (see minShould), quoted phrases must match, and the
// whole query as a phrase and the taxonomy terms it names add to the score.
// relaxed drops the word minimum to one, for a second try when the strict
// query finds nothing.
func (ix *Index) textQuery(q *userQuery, relaxed bool) query.Query {
	var words []query.Query
	required := 0
	for _, w := range q.words {
		c, significant := ix.wordClause(w)
		if c == nil {
			continue
		}
		words = append(words, c)
		if significant {
			required++
		}
	}

	var must, should []query.Query
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
	if len(words) > 1 {
		should = append(should, ix.phraseClause(q.loose, boostPhrase))
	}
	for _, tm := range ix.matcher.matches(normalWords(q.loose + " " + strings.Join(q.phrases, " "))) {
		t := query.NewTermQuery(tm.term.ID)
		t.SetField(string(tm.term.Facet))
		t.SetBoost(boostTerm * float64(min(tm.end-tm.start, maxTermWords)))
		should = append(should, t)
	}
	if len(must) == 0 {
		return query.NewMatchNoneQuery()
	}
	b := query.NewBooleanQuery(must, nil, nil)
	if len(should) > 0 {
		b.AddShould(combine(1, should...))
	}
	return b
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

// wordClause matches one word in every field. It reports whether the word is
// significant (has a letter); numbers and stop words may match but are not
// required. It returns nil for a word nothing can match, such as "the".
func (ix *Index) wordClause(w string) (query.Query, bool) {
	if hasHangul(w) {
		m := query.NewMatchQuery(w)
		m.SetField(fieldKorean)
		m.SetBoost(boostKorean)
		return m, true
	}
	var leaves []query.Query
	if len(ix.english.Analyze([]byte(w))) > 0 {
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
	}
	if id := trimIdent(w); isIdentifier(id) {
		t := query.NewTermQuery(strings.ToLower(id))
		t.SetField(fieldIdent)
		t.SetBoost(boostIdent)
		leaves = append(leaves, t)
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
	return combine(tieBreaker, leaves...), letterCount(w) > 0
}

// fuzziness is the edit distance allowed for w: none for short words (too
// many neighbours) and none for words the library contains as typed, so a
// typo match can never compete with an exact one; 1 from five letters, 2
// from eight, where a swapped pair of letters ("Karpneter") costs two edits.
func (ix *Index) fuzziness(w string) int {
	n := letterCount(w)
	if n < 5 || n != len([]rune(w)) {
		return 0
	}
	lw := strings.ToLower(w)
	if ix.hasWord(lw) {
		return 0
	}
	if n >= 8 {
		return 2
	}
	return 1
}

// hasWord reports whether the unstemmed vocabulary of the library holds w.
func (ix *Index) hasWord(w string) bool {
	d, err := ix.bleve.FieldDictRange(fieldWords, []byte(w), []byte(w))
	if err != nil {
		return false
	}
	defer d.Close()
	e, err := d.Next()
	return err == nil && e != nil && e.Term == w
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
