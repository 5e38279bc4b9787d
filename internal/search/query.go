package search

import (
	"context"
	"math"
	"strings"

	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"casebook/internal/library"
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
	boostIdent   = 3   // an identifier typed exactly
	boostKorean  = 2   // Korean prose is rare, so a match in it is telling
	boostFuzzy   = 0.3 // a typo match is worth less than any exact match
	boostTerm    = 1.2 // a document classified under a term the query names
	maxTermBoost = 2   // ... growing with the words of the name, up to this
	tieBreaker   = 0.2 // share of the other fields' scores a word keeps besides its best field
)

// tier is how many of the query's words a document must match. Search
// tries the tiers in order and keeps the first with enough matches.
type tier int

const (
	allWords  tier = iota // every significant word: cheap, and precise when it finds enough
	mostWords             // all but a third of them (see minShould)
	anyWord               // at least one, when nothing else matches
)

// textQuery turns a parsed query into a bleve query for one tier. ok is
// false when the tier would repeat an easier one.
//
// Each word becomes one clause scored by its best field (dis-max), so a word
// that appears in the title and the body is not counted twice. A word that
// is part of a taxonomy term's name also matches every document classified
// under that term: "toleration" finds incidents filed under
// untolerated-taint that never use the word. Quoted phrases must match.
// Words that appear next to each other as in the query earn a bonus later
// (see phraseBonus).
//
// Which documents match is decided by a cheaper twin of each word clause
// (see wordClause) that reads the posting lists of the "all" and "code"
// fields instead of one per field. bleve then scores only those documents, skipping the
// scoring clauses to them, where a disjunction of the scoring clauses would
// walk the postings of every field of every word.
// The second query, positions, holds only the scoring clauses: run over
// documents already known to match, it yields their match positions without
// walking the matching twins again.
func (ix *Index) textQuery(q *userQuery, t tier) (_, positions query.Query, ok bool) {
	terms := ix.termLeaves(q.words)
	var scoring, matching, required []query.Query
	for i, w := range q.words {
		c := ix.wordClause(w, terms[i])
		if c.score == nil {
			continue
		}
		scoring = append(scoring, c.score)
		matching = append(matching, c.match)
		if c.significant {
			required = append(required, c.match)
		}
	}

	var must []query.Query
	switch {
	case t == allWords && len(required) > 0:
		if minShould(len(required)) == len(required) && len(required) == len(matching) {
			return nil, nil, false // the same as mostWords
		}
		must = append(must, query.NewConjunctionQuery(required))
	case t == allWords:
		return nil, nil, false
	case len(matching) > 0:
		d := query.NewDisjunctionQuery(matching)
		d.SetMin(1)
		if t == mostWords {
			d.SetMin(float64(minShould(len(required))))
		}
		must = append(must, d)
	}
	shown := scoring
	for _, p := range q.phrases {
		pc := ix.phraseClause(p)
		must = append(must, pc)
		shown = append(shown, pc)
	}
	if len(must) == 0 {
		none := query.NewMatchNoneQuery()
		return none, none, true
	}
	return query.NewBooleanQuery(must, scoring, nil), query.NewDisjunctionQuery(shown), true
}

// namedTerm is a taxonomy term a query word is part of the name of.
type namedTerm struct {
	*library.Term
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
				out[i] = append(out[i], namedTerm{tm.term, boost})
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

// wordClauses are the two queries of one word: score ranks the documents
// by the word's best field; match finds the same documents from the "all"
// and "code" fields and scores nothing. significant is false for stop
// words and numbers, which may match but are not required.
type wordClauses struct {
	score, match query.Query
	significant  bool
}

// wordClause builds the clauses of one word: its fields, the taxonomy terms
// whose names it is part of, its identifier form and its typo neighbours.
// Both clauses are nil for a word nothing can match.
func (ix *Index) wordClause(w string, terms []namedTerm) wordClauses {
	var score, match []query.Query
	both := func(boost float64, make func() query.BoostableQuery) {
		s, m := make(), make()
		s.SetBoost(boost)
		m.SetBoost(0)
		score, match = append(score, s), append(match, m)
	}
	var c wordClauses
	for _, t := range terms {
		both(t.boost, func() query.BoostableQuery { return termQuery(string(t.Facet), t.ID) })
	}
	if hasHangul(w) {
		both(boostKorean, func() query.BoostableQuery { return matchQuery(w, fieldKorean, 0) })
		c.significant = true
	} else if len(ix.english.Analyze([]byte(w))) > 0 {
		for _, fb := range fieldBoosts {
			s := matchQuery(w, fb.field, 0)
			s.SetBoost(fb.boost)
			score = append(score, s)
		}
		for _, field := range []string{fieldAll, fieldCode} {
			m := matchQuery(w, field, 0)
			m.SetBoost(0)
			match = append(match, m)
		}
		c.significant = letterCount(w) > 0
	}
	if id := trimIdent(w); isIdentifier(id) {
		both(boostIdent, func() query.BoostableQuery { return termQuery(fieldIdent, strings.ToLower(id)) })
		c.significant = true
	}
	if f := ix.fuzziness(w); f > 0 {
		both(boostFuzzy, func() query.BoostableQuery { return matchQuery(w, fieldWords, f) })
	}
	if len(score) == 0 {
		return wordClauses{}
	}
	c.score = combine(tieBreaker, score...)
	c.match = query.NewDisjunctionQuery(match)
	return c
}

// matchQuery matches the analysed word w in field. All tokens of one typed
// word must match: nvidia.com/gpu is "nvidia.com" and "gpu" to the
// analyzer, and either alone is not what the user asked for.
func matchQuery(w, field string, fuzziness int) *query.MatchQuery {
	m := query.NewMatchQuery(w)
	m.SetField(field)
	m.SetOperator(query.MatchQueryOperatorAnd)
	m.SetFuzziness(fuzziness)
	return m
}

func termQuery(field, term string) *query.TermQuery {
	t := query.NewTermQuery(term)
	t.SetField(field)
	return t
}

// fuzziness is the edit distance allowed for w: none for short words (too
// many neighbours), for Korean (a one-syllable edit is a different word) and
// for words the library contains, as typed in a title, summary or signal or
// in any form in the text, so a typo match can never compete with an exact
// one; 1 from five letters, 2 from eight, where a swapped pair of letters
// ("Karpneter") costs two edits.
func (ix *Index) fuzziness(w string) int {
	n := letterCount(w)
	if n < 5 || n != len([]rune(w)) || hasHangul(w) {
		return 0
	}
	if ix.hasTerm(fieldWords, strings.ToLower(w)) {
		return 0
	}
	if toks := ix.english.Analyze([]byte(w)); len(toks) == 1 && ix.hasTerm(fieldAll, string(toks[0].Term)) {
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

// phraseClause matches a quoted phrase in any text field.
func (ix *Index) phraseClause(p string) query.Query {
	var leaves []query.Query
	if hasHangul(p) {
		m := query.NewMatchPhraseQuery(p)
		m.SetField(fieldKorean)
		m.SetBoost(boostKorean)
		leaves = append(leaves, m)
	}
	for _, fb := range fieldBoosts {
		m := query.NewMatchPhraseQuery(p)
		m.SetField(fb.field)
		m.SetBoost(fb.boost)
		leaves = append(leaves, m)
	}
	return combine(tieBreaker, leaves...)
}

// combine scores a disjunction as its best clause plus tie times the rest
// (dis-max). bleve's own disjunction multiplies the sum by the share of
// clauses that matched, which for one word searched in seven fields would
// reward appearing in many fields far more than appearing in the title.
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
