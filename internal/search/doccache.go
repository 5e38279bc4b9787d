package search

import "sync"

// shownDocs bounds the documents kept for highlighting.
const shownDocs = 2048

// docCache keeps the documents of recent hits. Highlights and the phrase
// bonus read the text of up to 30 hits a query, and rebuilding each
// document from the library (section prose without its commands, the
// copied fields) was a tenth of an uncached /api/search at 10,000
// incidents; popular queries show the same documents again and again.
// Documents never change once built, so they are shared.
type docCache struct {
	mu   sync.Mutex
	docs map[int]*document
}

// shown is the document of rank for highlighting, from the cache when a
// recent query showed it. A full cache drops an arbitrary entry (map order
// is random), which keeps the bound without bookkeeping per lookup.
func (ix *Index) shown(rank int) *document {
	c := &ix.shownDocs
	c.mu.Lock()
	d, ok := c.docs[rank]
	c.mu.Unlock()
	if ok {
		return d
	}
	d = ix.document(rank)
	c.mu.Lock()
	if c.docs == nil {
		c.docs = make(map[int]*document, shownDocs)
	}
	if len(c.docs) >= shownDocs {
		for k := range c.docs {
			delete(c.docs, k)
			break
		}
	}
	c.docs[rank] = d
	c.mu.Unlock()
	return d
}
