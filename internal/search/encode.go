package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/golang/snappy"
)

// resultBody is Result without Query, in the same field order.
type resultBody struct {
	Total            int                     `json:"total"`
	Hits             []Hit                   `json:"hits"`
	Facets           map[string][]FacetCount `json:"facets"`
	SuggestedFilters []Suggestion            `json:"suggested_filters"`
	Exact            string                  `json:"exact,omitempty"`
	Best             *Best                   `json:"best,omitempty"`
	Partial          bool                    `json:"partial,omitempty"`
	Help             *Help                   `json:"help,omitempty"`
}

// MarshalJSON writes {"query": …, then the rest: JSONParts joined, without
// the newline.
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
// it. The caller knows the length before writing, and json.Encoder's
// second pass over the 40 KiB MarshalJSON returns (it re-validates a
// Marshaler's output) is saved.
func (r *Result) JSONParts() ([][]byte, error) {
	body, err := r.body()
	if err != nil {
		return nil, err
	}
	return jsonParts(r.Query, body), nil
}

// jsonParts puts the query in front of body, the JSON of the rest.
func jsonParts(query string, body []byte) [][]byte {
	head := appendJSONString(append(make([]byte, 0, len(query)+16), `{"query":`...), query)
	if len(body) <= 2 {
		return [][]byte{append(head, "}\n"...)}
	}
	return [][]byte{append(head, ','), body[1:], newline}
}

var newline = []byte{'\n'}

// body is the JSON of everything but the query.
func (r *Result) body() ([]byte, error) { return r.appendBody(nil) }

// pooledBody is body encoded into a buffer from bodies, byte for byte what
// body returns; release gives the buffer back once the caller is done with
// it, rather than allocating every answer afresh.
func (r *Result) pooledBody() (b []byte, release func(), err error) {
	bp, release := borrow()
	b, err = r.appendBody((*bp)[:0])
	if err != nil {
		release()
		return nil, nil, err
	}
	*bp = b[:0] // the grown buffer goes back to the pool
	return b, release, nil
}

// bodies are buffers for compressing answers into the cache and for
// answers decoded from it on their way to a client: an allocation per
// answer raised the server's peak memory under load.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBody is the largest buffer kept for reuse.
const maxPooledBody = 512 << 10

// borrow takes a buffer from bodies; release gives it back (a caller that
// grows it stores the grown slice in *bp first, so the pool keeps it).
func borrow() (bp *[]byte, release func()) {
	bp = bodies.Get().(*[]byte)
	return bp, func() {
		if cap(*bp) <= maxPooledBody {
			bodies.Put(bp)
		}
	}
}

// bodyBuffer is a buffer of at least n bytes from bodies, with the func
// that gives it back.
func bodyBuffer(n int) ([]byte, func()) {
	bp, release := borrow()
	if cap(*bp) < n {
		*bp = make([]byte, n)
	}
	return (*bp)[:cap(*bp)], release
}

// keep compresses a result's body into a pooled buffer and puts it in the
// cache, which copies it into its ring.
func (c *resultCache) keep(key string, body []byte) {
	buf, release := bodyBuffer(snappy.MaxEncodedLen(len(body)))
	defer release()
	c.put(key, snappy.Encode(buf, body))
}

// unpackPooled decodes z into a buffer from bodies; release returns the
// buffer once the caller is done with body.
func unpackPooled(z []byte) (body []byte, release func(), err error) {
	n, err := snappy.DecodedLen(z)
	if err != nil {
		return nil, nil, fmt.Errorf("search: cached answer: %w", err)
	}
	buf, release := bodyBuffer(n)
	if body, err = snappy.Decode(buf, z); err != nil {
		release()
		return nil, nil, fmt.Errorf("search: cached answer: %w", err)
	}
	return body, release, nil
}

// resultOf decodes a cached body into the Result it was encoded from.
func resultOf(query string, z []byte) (*Result, error) {
	body, release, err := unpackPooled(z)
	if err != nil {
		return nil, err
	}
	defer release() // Unmarshal copies what it keeps
	var b resultBody
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, fmt.Errorf("search: cached answer: %w", err)
	}
	return &Result{Query: query, Total: b.Total, Hits: b.Hits, Facets: b.Facets, SuggestedFilters: b.SuggestedFilters,
		Exact: b.Exact, Best: b.Best, Partial: b.Partial, Help: b.Help}, nil
}
