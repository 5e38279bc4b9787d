package search

import (
	"container/list"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"casebook/internal/library"
)

// DefaultCacheBytes bounds the result cache of an index unless Options say
// otherwise: a few thousand compressed answers of a page of 20.
const DefaultCacheBytes = 32 << 20

// resultCache keeps recent answers, bounded in bytes. It belongs to one
// Index, so its keys are implicitly those of one content hash: a reload
// opens a new index with an empty cache and the old one goes with the old
// index.
//
// An answer is kept as its JSON (without the query), compressed with
// snappy: the API writes it back after a short decode, and a page or an
// MCP tool decodes it into a Result. Keeping the Result beside its JSON
// cost three to four times as much memory an answer, and the cache is
// bound by its size, so fewer answers would be found in it.
//
// The answers live in one ring of bytes outside the Go heap (ringMemory),
// written in turn: the oldest answers are overwritten first, and an answer
// asked for again when it is about to be overwritten is written anew at
// the front, so answers in use stay (second chance; on the benchmark's
// query log it answers as many requests as least-recently-used did). In the
// Go heap the cache's bytes counted twice towards the process's memory:
// the collector lets the heap grow to twice what is live. Outside it they
// count once. Only the keys and places are in the heap. (VictoriaMetrics'
// fastcache also keeps its bytes off the heap, but in 512 buckets of
// 64 KiB chunks, each a ring of its own: a bucket holds two or three
// answers, and answers would push each other out by the hash of their
// keys rather than by age.)
type resultCache struct {
	mu      sync.Mutex
	max     int64     // the ring's size
	ring    []byte    // allocated on the first put; nil once freed
	free    func()    // returns ring to the system
	head    int64     // where the next answer goes, counted from the first byte ever written
	order   list.List // of *cacheEntry, oldest (lowest at) first
	byKey   map[string]*list.Element
	cur     int64 // bytes of the answers held, and their keys and entries
	on      func(bool)
	closed  bool
	hits    atomic.Uint64
	misses  atomic.Uint64
	renewed atomic.Uint64 // answers written anew before their turn to go
}

type cacheEntry struct {
	key string
	at  int64 // where it starts, as head counts; ring[at%max:]
	n   int
}

// entryOverhead is what an entry costs in the heap beside its key: the
// entry, its list element and its map slot.
const entryOverhead = 160

func newResultCache(max int64, on func(bool)) *resultCache {
	if max == 0 {
		return nil
	}
	if max < 0 {
		max = DefaultCacheBytes
	}
	return &resultCache{max: max, byKey: map[string]*list.Element{}, on: on}
}

// get copies the answer kept under key into dst (grown as needed) and
// returns it: the ring's bytes may be overwritten once the lock is let go.
func (c *resultCache) get(key string, dst []byte) ([]byte, bool) {
	c.mu.Lock()
	el, ok := c.byKey[key]
	if ok {
		e := el.Value.(*cacheEntry)
		dst = append(dst[:0], c.bytesOf(e)...)
		// In the oldest quarter, soon to be overwritten: written anew at
		// the front, as least-recently-used would keep it.
		if e.at < c.head-c.max*3/4 {
			c.renew(el, e)
			c.renewed.Add(1)
		}
	}
	c.mu.Unlock()
	if c.on != nil {
		c.on(ok)
	}
	if !ok {
		c.misses.Add(1)
		return dst, false
	}
	c.hits.Add(1)
	return dst, true
}

func (c *resultCache) bytesOf(e *cacheEntry) []byte {
	p := e.at % c.max
	return c.ring[p : p+int64(e.n)]
}

// put keeps a copy of z under key.
func (c *resultCache) put(key string, z []byte) {
	if int64(len(z)) > c.max/8 {
		return // one giant answer must not flush the cache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok || c.closed {
		return
	}
	if c.ring == nil {
		ring, free := ringMemory(c.max)
		// An index dropped without Close still returns its ring.
		cleanup := runtime.AddCleanup(c, func(free func()) { free() }, free)
		c.ring, c.free = ring, func() { cleanup.Stop(); free() }
	}
	at := c.place(len(z))
	copy(c.ring[at%c.max:], z)
	e := &cacheEntry{key: key, at: at, n: len(z)}
	c.byKey[key] = c.order.PushBack(e)
	c.cur += int64(e.n+len(key)) + entryOverhead
}

// renew writes e again at the front, moving its bytes within the ring
// (copy moves overlapping bytes correctly, should the front reach them).
func (c *resultCache) renew(el *list.Element, e *cacheEntry) {
	from := e.at % c.max
	c.order.Remove(el)
	delete(c.byKey, e.key)
	c.cur -= int64(e.n+len(e.key)) + entryOverhead
	at := c.place(e.n)
	copy(c.ring[at%c.max:at%c.max+int64(e.n)], c.ring[from:from+int64(e.n)])
	e.at = at
	c.byKey[e.key] = c.order.PushBack(e)
	c.cur += int64(e.n+len(e.key)) + entryOverhead
}

// place makes room for n bytes at the head, dropping the answers the
// write overwrites, and returns where they go. An answer never wraps
// around the ring's end: the head skips to its start instead.
func (c *resultCache) place(n int) int64 {
	if p := c.head % c.max; p+int64(n) > c.max {
		c.head += c.max - p
	}
	at := c.head
	c.head += int64(n)
	for el := c.order.Front(); el != nil; el = c.order.Front() {
		e := el.Value.(*cacheEntry)
		if e.at >= c.head-c.max {
			break
		}
		c.order.Remove(el)
		delete(c.byKey, e.key)
		c.cur -= int64(e.n+len(e.key)) + entryOverhead
	}
	return at
}

// close drops every answer and returns the ring to the system; the cache
// answers nothing after it.
func (c *resultCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.free != nil {
		c.free()
	}
	c.ring, c.free, c.closed = nil, nil, true
	c.byKey = map[string]*list.Element{}
	c.order.Init()
	c.cur = 0
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
	if r.Lang.Korean() {
		b.WriteString("\x00ko")
	}
	return b.String()
}

// CacheStats reports the result cache's lookups since the index opened.
type CacheStats struct {
	Hits, Misses uint64
	Entries      int
	Bytes        int64
	// Renewed counts answers written anew before their turn to be
	// overwritten, because they were asked for.
	Renewed uint64
}

// CacheStats reports the result cache; all zero when it is off.
func (ix *Index) CacheStats() CacheStats {
	c := ix.cache
	if c == nil {
		return CacheStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Entries: len(c.byKey), Bytes: c.cur, Renewed: c.renewed.Load()}
}
