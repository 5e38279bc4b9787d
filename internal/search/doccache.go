package search

import "sync"

// recentCache keeps up to max values by key, building a missing one with
// the function given. A full cache drops an arbitrary entry (map order is
// random), which keeps the bound without bookkeeping per lookup; values
// never change once built, so they are shared.
type recentCache[K comparable, V any] struct {
	mu   sync.Mutex
	max  int
	vals map[K]V
}

func (c *recentCache[K, V]) get(key K, build func() V) V {
	v, _ := c.getOrErr(key, func() (V, error) { return build(), nil })
	return v
}

// getOrErr is get for a build that can fail; a failure is not kept.
func (c *recentCache[K, V]) getOrErr(key K, build func() (V, error)) (V, error) {
	c.mu.Lock()
	v, ok := c.vals[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.vals == nil {
		c.vals = make(map[K]V, c.max)
	}
	if len(c.vals) >= c.max {
		for k := range c.vals {
			delete(c.vals, k)
			break
		}
	}
	c.vals[key] = v
	c.mu.Unlock()
	return v, nil
}

// shownDocs bounds the documents kept for highlighting. Highlights and the
// phrase bonus read the text of up to 30 hits a query, and rebuilding each
// document from the library (section prose without its commands, the
// copied fields) is a large share of an uncached search, and popular
// queries show the same documents again and again. The bound is where a
// larger cache stopped paying for its memory on the benchmark's query log
// (docs/performance.md has the measurements).
const shownDocs = 3072

// placedDocs bounds the forward blocks kept (forward.go): reading one is a
// system call, and the same documents are shown query after query. A
// block is a few KB, so the cache costs a few MB.
const placedDocs = 2048

// maxTypoWords bounds the words whose typo neighbours are kept: building
// the Levenshtein automaton of a word allocates its whole state table, the
// largest allocation of a query with a typo tier, and the same words come
// back in query after query.
const maxTypoWords = 4096

// placedBlock is the forward block of the document at rank, from the cache
// when a recent query placed its terms.
func (ix *Index) placedBlock(rank int) ([]byte, error) {
	return ix.placed.getOrErr(rank, func() ([]byte, error) { return ix.mem.fwd.read(rank, nil) })
}

// shown is the document of rank for highlighting, from the cache when a
// recent query showed it.
func (ix *Index) shown(rank int) *document {
	return ix.shownDocs.get(rank, func() *document {
		d := ix.document(rank)
		d.compact()
		return d
	})
}
