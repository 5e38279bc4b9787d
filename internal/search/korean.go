package search

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// hangulFilterName marks Hangul tokens as ideographic so that bleve's CJK
// bigram filter splits them. bleve's unicode tokenizer types Hangul words
// as alphanumeric, and its "cjk" analyzer therefore keeps "노드가" or
// "자동복구" whole, where bigrams (노드 드가, 자동 동복 복구) match the
// nouns they contain.
const hangulFilterName = "casebook_hangul_bigrams"

type hangulFilter struct{}

func (hangulFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		if t.Type == analysis.AlphaNumeric && hasHangul(string(t.Term)) {
			t.Type = analysis.Ideographic
		}
	}
	return in
}

func init() {
	// The filter is looked up by name whenever an index using it is opened,
	// so it is registered for the life of the program.
	err := registry.RegisterTokenFilter(hangulFilterName, func(map[string]any, *registry.Cache) (analysis.TokenFilter, error) {
		return hangulFilter{}, nil
	})
	if err != nil {
		panic(err)
	}
}
