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
// ids verbatim and carry doc values for facet counts.
const (
	fieldKind     = "kind"
	fieldRank     = "rank"
	fieldTitle    = "title"
	fieldSummary  = "summary"
	fieldBody     = "body"
	fieldCode     = "code"
	fieldSignals  = "signals"
	fieldSources  = "sources"
	fieldOrgText  = "org_text"
	fieldKorean   = "ko"
	fieldIdent    = "ident"
	fieldWords    = "words"
	fieldOrg      = "org"
	fieldYear     = "year"
	analyzerWords = "casebook_words"
	analyzerKo    = "casebook_ko"
)

// facetFields are the keyword fields of the taxonomy facets; their names are
// the facet names so filters and facet counts need no translation.
var facetFields = []library.Facet{
	library.FacetCause, library.FacetCauseCategory, library.FacetComponent,
	library.FacetSymptom, library.FacetFactor, library.FacetDomain,
}

// newMapping describes the index. English prose is stemmed ("scheduled"
// finds "scheduling"); Korean goes to its own field with the CJK bigram
// analyzer, because Korean has no stemmer in bleve and bigrams still match
// words that carry a particle ("노드가") or lack a space ("자동복구")
// (see korean.go for why bleve's own "cjk" analyzer is not enough);
// identifiers and error tokens (nvidia.com/gpu, AcceleratedHardwareReady=False)
// are kept whole and only lower-cased, so they match as typed; "words" is an
// unstemmed copy of the names and summaries that typo-tolerant (fuzzy)
// matching runs against, because edit distance is meaningful on words people
// type, not on stems. Scoring is BM25 with true field lengths (see
// lengthCounter). Nothing is stored: hits are rendered from the library in
// memory.
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
		"token_filters": []string{cjk.WidthName, lowercase.Name, hangulFilterName, cjk.BigramName},
	}); err != nil {
		return nil, err
	}

	doc := mapping.NewDocumentStaticMapping()
	for name, analyzer := range fieldAnalyzers() {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store, f.IncludeInAll = false, false
		if analyzer == keyword.Name {
			// Facet counts and filters read doc values.
			f.IncludeTermVectors, f.DocValues = false, name != fieldIdent
		} else {
			// Phrases and highlighting need positions and offsets.
			f.IncludeTermVectors, f.DocValues = true, false
		}
		doc.AddFieldMappingsAt(name, f)
	}

	rank := mapping.NewNumericFieldMapping()
	rank.Store, rank.IncludeInAll, rank.DocValues = false, false, true
	doc.AddFieldMappingsAt(fieldRank, rank)

	m.DefaultMapping = doc
	return m, m.Validate()
}

// fieldAnalyzers maps every text and keyword field to its analyzer.
func fieldAnalyzers() map[string]string {
	m := map[string]string{
		fieldKorean: analyzerKo,
		fieldWords:  analyzerWords,
		fieldIdent:  keyword.Name,
		fieldKind:   keyword.Name,
		fieldOrg:    keyword.Name,
		fieldYear:   keyword.Name,
	}
	for _, f := range []string{fieldTitle, fieldSummary, fieldBody, fieldCode, fieldSignals, fieldSources, fieldOrgText} {
		m[f] = en.AnalyzerName
	}
	for _, f := range facetFields {
		m[string(f)] = keyword.Name
	}
	return m
}
