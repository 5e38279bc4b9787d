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
	// charge, when the result is in the cache, adds the encoding's bytes
	// to the cache's count: the bytes live as long as the entry does, so a
	// cache bounded without them would hold about twice its bound.
	charge func(n int64)
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

// MarshalJSON writes {"query": …, then the shared encoding of the rest:
// JSONParts joined, without the newline.
func (r *Result) MarshalJSON() ([]byte, error) {
	parts, err := r.JSONParts()
	if err != nil {
		return nil, err
	}
	b := bytes.Join(parts, nil)
	return b[:len(b)-1], nil
}

// JSONParts are the result's JSON as MarshalJSON writes it, followed by a
// newline (as json.Encoder ends a value), in pieces that concatenate to
// it: the query's part and the shared bytes of the rest. A cached answer is
// then written without a copy, and without json.Encoder's second pass over
// the 40 KiB MarshalJSON returns (it re-validates a Marshaler's output);
// the caller knows the length before writing.
func (r *Result) JSONParts() ([][]byte, error) {
	body, err := r.body()
	if err != nil {
		return nil, err
	}
	q, err := json.Marshal(r.Query)
	if err != nil {
		return nil, err
	}
	head := make([]byte, 0, len(q)+12)
	head = append(append(head, `{"query":`...), q...)
	if len(body) <= 2 {
		return [][]byte{append(head, "}\n"...)}, nil
	}
	return [][]byte{append(head, ','), body[1:], newline}, nil
}

var newline = []byte{'\n'}

// body is the shared encoding of everything but the query.
func (r *Result) body() ([]byte, error) {
	enc := r.enc
	if enc == nil {
		enc = &encoded{}
	}
	enc.once.Do(func() {
		enc.body, enc.err = json.Marshal(resultBody{Total: r.Total, Hits: r.Hits, Facets: r.Facets,
			SuggestedFilters: r.SuggestedFilters, Exact: r.Exact, Partial: r.Partial, Help: r.Help})
		if enc.err == nil && enc.charge != nil {
			enc.charge(int64(cap(enc.body)))
		}
	})
	return enc.body, enc.err
}
