package search

import (
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
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

// newMapping describes the bleve part of the index:
//
//   - "all" holds the English prose, stemmed ("scheduled" finds
//     "scheduling"): titles, summaries, signals, organisations, source titles
//     and the body, so one posting list per word decides which documents
//     match, and quoted phrases and highlights read its positions.
//   - "code" holds the code blocks, apart (with less weight) because the same
//     kubectl lines appear in every playbook and would otherwise drown the
//     prose.
//   - "ko" holds the Korean prose, split from attached English, stripped of
//     particles and cut into bigrams (korean.go), which match words that
//     carry a particle ("노드가") or lack a space ("자동복구"). English words
//     inside Korean prose are kept there, lower-cased.
//
// The short fields that weight a match — titles, summaries, signals,
// organisations, source titles, Korean titles — the unstemmed typo
// vocabulary ("words": edit distance means something on the words people
// type, not on stems) and identifiers kept whole (nvidia.com/gpu,
// AcceleratedHardwareReady=False) are memory fields (memfield.go). Facet
// filters and counts read the facet table. Documents are analysed before
// bleve sees them (analyse.go), so the analyzers registered here are the
// ones queries use.
//
// Scoring is BM25 with true field lengths, counted at build time. Nothing
// is stored: hits are rendered from the library in memory.
func newMapping() (*mapping.IndexMappingImpl, error) {
	m := mapping.NewIndexMapping()
	m.ScoringModel = index.BM25Scoring
	m.DefaultAnalyzer = analyzerEn
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false
	// bleve's "en" analyzer, with the same tokens from a faster tokenizer
	// and a stemmer that remembers (tokenize.go).
	if err := m.AddCustomAnalyzer(analyzerEn, map[string]any{
		"type":          custom.Name,
		"tokenizer":     tokenizerFast,
		"token_filters": []string{en.PossessiveName, lowercase.Name, en.StopName, stemmerCached},
	}); err != nil {
		return nil, err
	}
	if err := m.AddCustomAnalyzer(analyzerWords, map[string]any{
		"type":          custom.Name,
		"tokenizer":     tokenizerFast,
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
	for _, name := range bleveFields {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = analyzerEn
		if name == fieldKorean {
			f.Analyzer = analyzerKo
		}
		f.Store, f.IncludeInAll, f.IncludeTermVectors, f.DocValues = false, false, true, false
		doc.AddFieldMappingsAt(name, f)
	}
	m.DefaultMapping = doc
	return m, m.Validate()
}
