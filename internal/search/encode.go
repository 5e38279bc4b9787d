package search

import (
	"bytes"
	"encoding/json"
	"sync"
)

// encoded is a result's JSON without its query, computed once and shared by
// every copy the cache hands out: a cached answer then costs a copy of
// bytes instead of a walk over its hits, fragments and facets, which was
// most of the CPU of a cached /api/search request.
type encoded struct {
	once sync.Once
	body []byte // {"total":…} without "query"
	err  error
}

// resultBody is Result without Query, in the same field order.
type resultBody struct {
	Total            int                     `json:"total"`
	Hits             []Hit                   `json:"hits"`
	Facets           map[string][]FacetCount `json:"facets"`
	SuggestedFilters []Suggestion            `json:"suggested_filters"`
	Exact            string                  `json:"exact,omitempty"`
	Partial          bool                    `json:"partial,omitempty"`
	Help             *Help                   `json:"help,omitempty"`
}

// MarshalJSON writes {"query": …, then the shared encoding of the rest.
func (r *Result) MarshalJSON() ([]byte, error) {
	enc := r.enc
	if enc == nil {
		enc = &encoded{}
	}
	enc.once.Do(func() {
		enc.body, enc.err = json.Marshal(resultBody{Total: r.Total, Hits: r.Hits, Facets: r.Facets,
			SuggestedFilters: r.SuggestedFilters, Exact: r.Exact, Partial: r.Partial, Help: r.Help})
	})
	if enc.err != nil {
		return nil, enc.err
	}
	q, err := json.Marshal(r.Query)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(enc.body) + len(q) + 10)
	b.WriteString(`{"query":`)
	b.Write(q)
	if len(enc.body) > 2 {
		b.WriteByte(',')
		b.Write(enc.body[1:])
	} else {
		b.WriteByte('}')
	}
	return b.Bytes(), nil
}
