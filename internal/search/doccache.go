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

// maxTypoWords bounds the words whose typo neighbours are kept.
const maxTypoWords = 4096

// typoCache keeps the typo neighbours of recent query words: building the
// Levenshtein automaton of a word allocates its whole state table, the
// largest allocation of a query with a typo tier, and the same words come
// back in query after query.
type typoCache struct {
	mu    sync.Mutex
	words map[string][]string
}

func (c *typoCache) get(key string, find func() []string) []string {
	c.mu.Lock()
	out, ok := c.words[key]
	c.mu.Unlock()
	if ok {
		return out
	}
	out = find()
	c.mu.Lock()
	if c.words == nil {
		c.words = make(map[string][]string)
	}
	if len(c.words) >= maxTypoWords {
		for k := range c.words {
			delete(c.words, k)
			break
		}
	}
	c.words[key] = out
	c.mu.Unlock()
	return out
}
