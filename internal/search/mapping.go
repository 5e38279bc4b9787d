package search

import (
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"casebook/internal/library"
)

// Index field names. Text fields are analysed; the facet fields hold term
// ids verbatim, for queries that expand a term's name to the term.
const (
	fieldTitle    = "title"
	fieldSummary  = "summary"
	fieldBody     = "body" // not indexed on its own: part of "all"
	fieldCode     = "code"
	fieldSignals  = "signals"
	fieldSources  = "sources"
	fieldOrgText  = "org_text"
	fieldKorean   = "ko"
	fieldKoTitle  = "ko_title"
	fieldIdent    = "ident"
	fieldWords    = "words"
	fieldAll      = "all"
	analyzerWords = "casebook_words"
	analyzerKo    = "casebook_ko"
)

// facetFields are the keyword fields of the taxonomy facets, named after the
// facets.
var facetFields = []library.Facet{
	library.FacetCause, library.FacetCauseCategory, library.FacetComponent,
	library.FacetSymptom, library.FacetFactor, library.FacetDomain,
}

// newMapping describes the index:
//
//   - English prose is stemmed ("scheduled" finds "scheduling").
//   - Korean prose goes to its own fields ("ko" for all of it, "ko_title"
//     for titles and summaries again), split from attached English, stripped
//     of particles and cut into bigrams (korean.go), which match words that
//     carry a particle ("노드가") or lack a space ("자동복구"). English words
//     inside Korean prose are kept there, lower-cased.
//   - Identifiers and error tokens (nvidia.com/gpu,
//     AcceleratedHardwareReady=False) are kept whole and only lower-cased,
//     so they match as typed.
//   - "words" is an unstemmed copy of titles, summaries and signals for
//     typo-tolerant matching: edit distance means something on the words
//     people type, not on stems.
//   - "all" holds the body prose and every short English field again, so
//     one posting list per word decides which documents match (see
//     textQuery), and the body is analysed once.
//
// Scoring is BM25 with true field lengths (see lengthCounter). Nothing is
// stored: hits are rendered from the library in memory.
func newMapping() (*mapping.IndexMappingImpl, error) {
	m := mapping.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.DefaultAnalyzer = en.AnalyzerName
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false
	if err := m.AddCustomAnalyzer(analyzerWords, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{lowercase.Name},
	}); err != nil {
		return nil, err
	}
	if err := m.AddCustomAnalyzer(analyzerKo, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{cjk.WidthName, scriptSplitName, particleName, lowercase.Name, hangulFilterName, cjk.BigramName},
	}); err != nil {
		return nil, err
	}

	doc := mapping.NewDocumentStaticMapping()
	for name, analyzer := range fieldAnalyzers() {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store, f.IncludeInAll = false, false
		// Phrases and highlighting need positions and offsets in the
		// fields they read. Filters, facet counts and sorting work on the
		// library in memory, so no field needs doc values.
		f.IncludeTermVectors, f.DocValues = positionFields[name], false
		doc.AddFieldMappingsAt(name, f)
	}

	m.DefaultMapping = doc
	return m, m.Validate()
}

// positionFields keep term vectors (positions and offsets): the fields the
// highlighter and the phrase check read (see leaf.positions). The others
// only need frequencies and norms for scoring, and positions would cost
// index build time for nothing.
var positionFields = map[string]bool{fieldAll: true, fieldCode: true, fieldKorean: true, fieldWords: true}

// analyzerOf is fieldAnalyzers, computed once.
var analyzerOf = fieldAnalyzers()

// fieldAnalyzers maps every indexed text and keyword field to its analyzer.
func fieldAnalyzers() map[string]string {
	m := map[string]string{
		fieldKorean:  analyzerKo,
		fieldKoTitle: analyzerKo,
		fieldWords:   analyzerWords,
		fieldIdent:   keyword.Name,
	}
	for _, f := range []string{fieldTitle, fieldSummary, fieldSignals, fieldSources, fieldOrgText, fieldAll, fieldCode} {
		m[f] = en.AnalyzerName
	}
	for _, f := range facetFields {
		m[string(f)] = keyword.Name
	}
	return m
}
