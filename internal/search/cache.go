package search

import (
	"container/list"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"casebook/internal/library"
)

// DefaultCacheBytes bounds the result cache of an index unless Options say
// otherwise: 1,200–2,000 answers of a page of 20 (an answer's JSON measured
// 34–70 KB, 16–28 KB compressed).
const DefaultCacheBytes = 32 << 20

// Options tune an open index.
type Options struct {
	// CacheBytes bounds the result cache; 0 turns it off, negative means
	// DefaultCacheBytes.
	CacheBytes int64
	// OnCache is told of every cache lookup (hit or miss), for metrics.
	OnCache func(hit bool)
	// Merging, when set, is called when a fresh build has written its
	// segments and starts merging them into one: the build's analysed
	// documents are garbage from then on, and the merge maps every segment
	// file, so the caller may hand the freed memory back first (see
	// content's load pipeline).
	Merging func()
}

// resultCache keeps recent answers, least recently used out first, bounded
// in bytes. It belongs to one Index, so its keys are implicitly those of one
// content hash: a reload opens a new index with an empty cache and the old
// one goes with the old index.
//
// An answer is kept as its JSON (without the query), compressed with
// snappy: the API writes it back after a 13–50 µs decode, and a page or an
// MCP tool decodes it into a Result (250–650 µs). Keeping the Result and its JSON side
// by side cost 55–115 KB an answer, three to four times as much, and at
// 10,000 incidents the cache was bound by its size: on the benchmark's
// query log, 32 MiB of Results answered 72 % of requests and 96 MiB 82 %.
type resultCache struct {
	mu       sync.Mutex
	max, cur int64
	order    *list.List // of *cacheEntry, most recent first
	byKey    map[string]*list.Element
	on       func(bool)
	hits     atomic.Uint64
	misses   atomic.Uint64
}

type cacheEntry struct {
	key  string
	z    []byte // snappy-compressed JSON of the answer without its query
	size int64
}

// entryOverhead is what an entry costs beside its key and bytes: the
// entry, its list element and its map slot.
const entryOverhead = 160

func newResultCache(max int64, on func(bool)) *resultCache {
	if max == 0 {
		return nil
	}
	if max < 0 {
		max = DefaultCacheBytes
	}
	return &resultCache{max: max, order: list.New(), byKey: map[string]*list.Element{}, on: on}
}

// cacheKey is the request normalised: the query folded to lower case with
// runs of spaces as one (search ignores case and spacing), filters sorted.
func cacheKey(r Request) string {
	var b strings.Builder
	b.WriteString(strings.Join(strings.Fields(strings.ToLower(smartQuotes.Replace(r.Query))), " "))
	b.WriteString("\x00")
	b.WriteString(r.Kind)
	facets := make([]string, 0, len(r.Filters))
	for f, v := range r.Filters {
		if len(v) > 0 {
			facets = append(facets, string(f))
		}
	}
	slices.Sort(facets)
	for _, f := range facets {
		terms := slices.Clone(r.Filters[library.Facet(f)])
		slices.Sort(terms)
		b.WriteString("\x00" + f + "=" + strings.Join(terms, ","))
	}
	orgs := make([]string, len(r.Org))
	for i, o := range r.Org {
		orgs[i] = orgKey(o)
	}
	slices.Sort(orgs)
	b.WriteString("\x00org=" + strings.Join(orgs, ","))
	years := slices.Clone(r.Year)
	slices.Sort(years)
	b.WriteString("\x00year=")
	for _, y := range years {
		b.WriteString(strconv.Itoa(y) + ",")
	}
	layers := slices.Clone(r.Layer)
	slices.Sort(layers)
	b.WriteString("\x00layer=" + strings.Join(layers, ","))
	b.WriteString("\x00" + strconv.Itoa(max(r.Page, 1)) + "/" + strconv.Itoa(r.PerPage))
	return b.String()
}

func (c *resultCache) get(key string) ([]byte, bool) {
	c.mu.Lock()
	el, ok := c.byKey[key]
	if ok {
		c.order.MoveToFront(el)
	}
	c.mu.Unlock()
	if c.on != nil {
		c.on(ok)
	}
	if !ok {
		c.misses.Add(1)
		return nil, false
	}
	c.hits.Add(1)
	return el.Value.(*cacheEntry).z, true
}

func (c *resultCache) put(key string, z []byte) {
	size := int64(cap(z)+len(key)) + entryOverhead
	if size > c.max/8 {
		return // one giant answer must not flush the cache
	}
	e := &cacheEntry{key: key, z: z, size: size}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return
	}
	c.byKey[key] = c.order.PushFront(e)
	c.cur += size
	c.evict()
}

func (c *resultCache) evict() {
	for c.cur > c.max {
		el := c.order.Back()
		e := el.Value.(*cacheEntry)
		c.order.Remove(el)
		delete(c.byKey, e.key)
		c.cur -= e.size
	}
}

// CacheStats reports the result cache's lookups since the index opened.
type CacheStats struct {
	Hits, Misses uint64
	Entries      int
	Bytes        int64
}

// CacheStats reports the result cache; all zero when it is off.
func (ix *Index) CacheStats() CacheStats {
	c := ix.cache
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Entries: len(c.byKey), Bytes: c.cur}
}
