package search

import (
	"fmt"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/registry"
)

// Index field names. The prose fields hold the text for matching, quoted
// phrases and highlights:
//
//   - "all" holds the English prose, stemmed ("scheduled" finds
//     "scheduling"): titles, summaries, signals, organisations, source titles
//     and the body, so one posting list per word decides which documents
//     match, and quoted phrases and highlights read its places.
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
// AcceleratedHardwareReady=False) are fields too. Every field is a memory
// field (postings.go); the prose fields' places are in the forward file
// (forward.go). Facet filters and counts read the facet table.
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

// analyzers are bleve analyzers, the same for documents and queries; they
// are safe for concurrent use.
type analyzers struct {
	english analysis.Analyzer // bleve's "en", with the same tokens from a faster tokenizer and a stemmer that remembers (tokenize.go)
	words   analysis.Analyzer // the typo vocabulary's: lower-cased, unstemmed
	korean  analysis.Analyzer // korean.go
}

// newAnalyzers returns the analyzers, made once.
var newAnalyzers = sync.OnceValues(func() (*analyzers, error) {
	c := registry.NewCache()
	var a analyzers
	for _, d := range []struct {
		to              *analysis.Analyzer
		name, tokenizer string
		filters         []string
	}{
		{&a.english, analyzerEn, tokenizerFast, []string{en.PossessiveName, lowercase.Name, en.StopName, stemmerCached}},
		{&a.words, analyzerWords, tokenizerFast, []string{lowercase.Name}},
		{&a.korean, analyzerKo, unicode.Name, []string{cjk.WidthName, scriptSplitName, particleName, lowercase.Name, hangulFilterName, cjk.BigramName}},
	} {
		an, err := c.DefineAnalyzer(d.name, map[string]any{"type": custom.Name, "tokenizer": d.tokenizer, "token_filters": d.filters})
		if err != nil {
			return nil, fmt.Errorf("search: analyzer %s: %w", d.name, err)
		}
		*d.to = an
	}
	return &a, nil
})
