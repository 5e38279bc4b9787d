package search

import (
	"container/list"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"casebook/internal/library"
)

// DefaultCacheBytes bounds the result cache of an index unless Options say
// otherwise: about 10,000 answers of a page of 20.
const DefaultCacheBytes = 32 << 20

// Options tune an open index.
type Options struct {
	// CacheBytes bounds the result cache; 0 turns it off, negative means
	// DefaultCacheBytes.
	CacheBytes int64
	// OnCache is told of every cache lookup (hit or miss), for metrics.
	OnCache func(hit bool)
}

// resultCache keeps recent answers, least recently used out first, bounded
// by an estimate of their size in bytes. It belongs to one Index, so its
// keys are implicitly those of one content hash: a reload opens a new index
// with an empty cache and the old one goes with the old index.
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
	res  *Result
	size int64
}

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

func (c *resultCache) get(key string) (*Result, bool) {
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
	return el.Value.(*cacheEntry).res, true
}

func (c *resultCache) put(key string, res *Result) {
	size := resultSize(res) + int64(len(key)) + 200
	if size > c.max/8 {
		return // one giant answer must not flush the cache
	}
	e := &cacheEntry{key: key, res: res, size: size}
	if res.enc != nil {
		// Set before the entry is shared: a result reaches other
		// goroutines only through the map below.
		res.enc.charge = func(n int64) { c.grow(e, n) }
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return
	}
	c.byKey[key] = c.order.PushFront(e)
	c.cur += size
	c.evict()
}

// grow adds n bytes to an entry still in the cache (its JSON, encoded
// after it was put) and evicts to stay within the bound.
func (c *resultCache) grow(e *cacheEntry, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[e.key]; !ok || el.Value.(*cacheEntry) != e {
		return // evicted already: the bytes go with whoever still holds the result
	}
	e.size += n
	c.cur += n
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

// resultSize estimates the memory a result holds of its own. Titles,
// summaries, ids, facet terms and labels are the library's strings, shared
// by every result that shows them, so only their headers count; the
// fragments are built for the result and count whole. (Counting the shared
// text too made the bound hold about half the answers it has room for.)
func resultSize(r *Result) int64 {
	const mapEntry = 48 // a map slot: key, value, tophash and load slack
	n := int64(unsafe.Sizeof(*r)) + int64(len(r.Query))
	n += int64(cap(r.Hits)) * int64(unsafe.Sizeof(Hit{}))
	for _, h := range r.Hits {
		for k, fs := range h.Fragments {
			n += mapEntry + int64(len(k)) + int64(cap(fs))*int64(unsafe.Sizeof(""))
			for _, f := range fs {
				n += int64(len(f))
			}
		}
	}
	for _, fcs := range r.Facets {
		n += mapEntry + int64(cap(fcs))*int64(unsafe.Sizeof(FacetCount{}))
	}
	n += int64(cap(r.SuggestedFilters)) * int64(unsafe.Sizeof(Suggestion{}))
	if r.Help != nil {
		n += int64(unsafe.Sizeof(*r.Help)) + int64(len(r.Help.DidYouMean))
		for _, d := range r.Help.DropFilters {
			n += int64(unsafe.Sizeof(d)) + int64(cap(d.Terms))*int64(unsafe.Sizeof(""))
		}
	}
	return n
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
