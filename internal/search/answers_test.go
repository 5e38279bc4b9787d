package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/golang/snappy"

	"casebook/internal/library"
)

// The tabs of one query: "All" is the union of "Incidents" and
// "Playbooks", whatever tab is open, and each tab's count is the total the
// tab shows. A tier chosen per tab once made "All" show 3 results and
// "Incidents" 20.
func TestSearchTabsAreOneResult(t *testing.T) {
	for _, q := range []string{"GPU node present but workload not scheduled", "gpu driver", "taint toleration GPU mismatch",
		"dns outage", "파드 펜딩", "kernel panic after power cut"} {
		all := search(t, Request{Query: q, PerPage: MaxPerPage})
		tabs := map[string]int{}
		for _, fc := range all.Facets["kind"] {
			tabs[fc.Term] = fc.Count
		}
		if tabs[KindIncident]+tabs[KindPlaybook] != all.Total {
			t.Errorf("%q: tabs %v do not add up to the %d of All", q, tabs, all.Total)
		}
		seen := map[string]bool{}
		for _, kind := range []string{KindIncident, KindPlaybook} {
			res := search(t, Request{Query: q, Kind: kind, PerPage: MaxPerPage})
			if res.Total != tabs[kind] {
				t.Errorf("%q: the %s tab holds %d, its count says %d", q, kind, res.Total, tabs[kind])
			}
			for _, fc := range res.Facets["kind"] {
				if fc.Count != tabs[fc.Term] {
					t.Errorf("%q: on the %s tab the %s count is %d, on All %d", q, kind, fc.Term, fc.Count, tabs[fc.Term])
				}
			}
			for _, h := range res.Hits {
				if h.Kind != kind {
					t.Errorf("%q: the %s tab shows %s (%s)", q, kind, h.ID, h.Kind)
				}
				seen[h.ID] = true
			}
		}
		for _, h := range all.Hits {
			if !seen[h.ID] {
				t.Errorf("%q: %s is on All but on no tab", q, h.ID)
			}
		}
	}
}

// An incident id, typed any way, is the first hit and named as Exact.
func TestSearchFindsIncidentByID(t *testing.T) {
	for _, q := range []string{"IL-0171", "il-0171", "IL0171", "0171", "171", " IL-171 "} {
		res := search(t, Request{Query: q})
		if res.Exact != "IL-0171" || len(res.Hits) == 0 || res.Hits[0].ID != "IL-0171" || !res.Hits[0].Exact {
			t.Errorf("%q: exact %q, hits %v; want IL-0171 first", q, res.Exact, hitIDs(res))
		}
	}
	res := search(t, Request{Query: "gpu-missing"})
	if res.Exact != "gpu-missing" || res.Hits[0].ID != "gpu-missing" {
		t.Errorf("playbook id: exact %q, hits %v", res.Exact, hitIDs(res))
	}
	if res := search(t, Request{Query: "IL-9999"}); res.Exact != "" {
		t.Errorf("an id not in the library is exact: %q", res.Exact)
	}
	// A filter that excludes the incident wins over the id.
	if res := search(t, Request{Query: "IL-0171", Kind: KindPlaybook}); res.Exact != "" {
		t.Errorf("IL-0171 on the playbook tab: exact %q", res.Exact)
	}
}

// Coordination: when no document holds every word, one holding three of
// four words outranks one holding only the most common word, however often
// it says it.
func TestSearchPartialMatchRanksByMatchedWords(t *testing.T) {
	lib := loadLibrary(t)
	// "zalando" and "coredns" and "ndots" are in IL-0001; "xylophone" is in
	// nothing; "gpu" is in many documents.
	res := search(t, Request{Query: "gpu zalando coredns xylophone"})
	if len(res.Hits) == 0 || res.Hits[0].ID != "IL-0001" {
		t.Fatalf("first hits %v, want IL-0001 (three of four words) first", hitIDs(res))
	}
	for i, h := range res.Hits {
		in, ok := lib.Incident(h.ID)
		if ok && in.ID != "IL-0001" && !strings.Contains(strings.ToLower(in.Title+in.Summary), "zalando") && i == 1 && h.Score > res.Hits[0].Score/2 {
			t.Errorf("%s (one common word) scores %.2f, close to IL-0001's %.2f", h.ID, h.Score, res.Hits[0].Score)
		}
	}
}

// Facets, tab counts and suggestions describe the result, not the library.
func TestSearchSuggestionsCountResult(t *testing.T) {
	res := search(t, Request{Query: "karpenter gpu node", PerPage: MaxPerPage})
	var hits []Hit
	for page := 1; (page-1)*MaxPerPage < res.Total; page++ {
		hits = append(hits, search(t, Request{Query: "karpenter gpu node", PerPage: MaxPerPage, Page: page}).Hits...)
	}
	for _, s := range res.SuggestedFilters {
		n := 0
		for _, h := range hits {
			if sharedIndex(t).facets.has(sharedIndex(t).rankByID[h.ID], string(s.Facet), s.Term) {
				n++
			}
		}
		if s.Count == 0 || s.Count != n {
			t.Errorf("suggestion %s:%s count %d, results carrying it %d", s.Facet, s.Term, s.Count, n)
		}
	}
}

// A query without results says what to try: the spelling the library
// knows and the filters to drop, with the results each would give.
func TestSearchZeroResultHelp(t *testing.T) {
	res := search(t, Request{Query: "karpneter", Filters: map[library.Facet][]string{library.FacetDomain: {"llm-serving"}}})
	if res.Total != 0 {
		t.Skipf("karpneter in llm-serving has %d results; the library changed", res.Total)
	}
	if res.Help == nil || len(res.Help.DropFilters) != 1 || res.Help.DropFilters[0].Count == 0 {
		t.Fatalf("help %+v: want the domain filter with the results without it", res.Help)
	}
	res = search(t, Request{Query: "zzkarpnterxx qqq"})
	if res.Total != 0 || res.Help == nil {
		t.Fatalf("nonsense query: total %d, help %+v", res.Total, res.Help)
	}
	res = search(t, Request{Query: "bottlerocket karpnter", Filters: map[library.Facet][]string{library.FacetDomain: {"llm-serving"}}})
	if res.Total == 0 && (res.Help == nil || !strings.Contains(res.Help.DidYouMean, "karpenter")) {
		t.Errorf("did you mean: %+v", res.Help)
	}
}

// Cost limits: a query too long to have been typed is refused with a
// QueryError naming the limit, not run.
func TestSearchRefusesOversizedQueries(t *testing.T) {
	for name, q := range map[string]string{
		"words":   strings.Repeat("gpu node ", maxQueryWords),
		"phrases": strings.Repeat(`"a b" `, maxPhrases+1),
		"bytes":   strings.Repeat("x", MaxQueryBytes+1),
	} {
		_, err := sharedIndex(t).Search(context.Background(), Request{Query: q})
		var qe *QueryError
		if !errors.As(err, &qe) || !strings.Contains(qe.Msg, "limit") {
			t.Errorf("%s: err %v, want a QueryError naming the limit", name, err)
		}
	}
	// A long pasted error line within the caps still runs.
	if res := search(t, Request{Query: "0/6 nodes are available: 2 Insufficient nvidia.com/gpu, 4 node(s) had untolerated taint {nvidia.com/gpu: present}. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling."}); res.Total == 0 {
		t.Error("a pasted scheduler message found nothing")
	}
}

// Korean: a particle never blocks a match, and Hangul spellings of English
// terms find what the English term finds.
func TestSearchKorean(t *testing.T) {
	same := [][2]string{{"GPU가 안 보임", "GPU 안 보임"}, {"파드가 펜딩", "파드 펜딩"}, {"노드에서 OOM이", "노드 OOM"}}
	for _, p := range same {
		a, b := search(t, Request{Query: p[0], PerPage: 5}), search(t, Request{Query: p[1], PerPage: 5})
		if strings.Join(hitIDs(a), ",") != strings.Join(hitIDs(b), ",") {
			t.Errorf("%q finds %v, %q finds %v", p[0], hitIDs(a), p[1], hitIDs(b))
		}
	}
	for q, want := range map[string]string{"펜딩": "pod-pending", "오오엠": "memory", "쿠다 오오엠": "memory", "GPU가 안 보임": "gpu-missing"} {
		if res := search(t, Request{Query: q, PerPage: 3}); len(res.Hits) == 0 || res.Hits[0].ID != want {
			t.Errorf("%q: first hits %v, want %s", q, hitIDs(res), want)
		}
	}
	res := search(t, Request{Query: "파드 펜딩"})
	found := false
	for _, s := range res.SuggestedFilters {
		found = found || s.Term == "pod-pending"
	}
	if !found {
		t.Errorf("파드 펜딩 suggests %v, want the pod-pending symptom", res.SuggestedFilters)
	}
}

// The cache answers a repeated request, folded for case and spacing, with
// the same result and the query as typed.
func TestSearchCache(t *testing.T) {
	ix := sharedIndex(t)
	before := ix.CacheStats()
	a := search(t, Request{Query: "Kernel  panic"})
	b := search(t, Request{Query: "kernel panic"})
	after := ix.CacheStats()
	if after.Hits < before.Hits+1 {
		t.Errorf("cache stats %+v then %+v: the second request missed", before, after)
	}
	if b.Query != "kernel panic" || a.Query != "Kernel  panic" || strings.Join(hitIDs(a), ",") != strings.Join(hitIDs(b), ",") {
		t.Errorf("cached answer differs: %q %v / %q %v", a.Query, hitIDs(a), b.Query, hitIDs(b))
	}
	if after.Bytes <= 0 || after.Bytes > DefaultCacheBytes {
		t.Errorf("cache holds %d bytes", after.Bytes)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var ma, mb map[string]any
	if json.Unmarshal(ja, &ma) != nil || json.Unmarshal(jb, &mb) != nil || ma["query"] != "Kernel  panic" || mb["query"] != "kernel panic" {
		t.Fatalf("JSON of cached answers: %.80s / %.80s", ja, jb)
	}
	delete(ma, "query")
	delete(mb, "query")
	if x, y := fmt.Sprint(ma), fmt.Sprint(mb); x != y {
		t.Errorf("a cached answer's JSON differs from the first:\n%.300s\n%.300s", x, y)
	}
}

func TestCacheKeyIgnoresFilterOrder(t *testing.T) {
	a := cacheKey(Request{Query: "x", Filters: map[library.Facet][]string{library.FacetDomain: {"gpu", "kubernetes"}}, Org: []string{"B", "a"}})
	b := cacheKey(Request{Query: " X ", Filters: map[library.Facet][]string{library.FacetDomain: {"kubernetes", "gpu"}}, Org: []string{"A", "b"}})
	if a != b {
		t.Errorf("keys differ:\n%q\n%q", a, b)
	}
	if a == cacheKey(Request{Query: "x", Page: 2}) {
		t.Error("pages share a key")
	}
	_ = context.Background
}

// The cache holds answers within its bound, counting the bytes it keeps,
// and every answer it still has comes back byte for byte, however the
// ring has wrapped.
func TestCacheStaysWithinItsBound(t *testing.T) {
	const max = 64 << 10
	c := newResultCache(max, nil)
	defer c.close()
	kept := map[string][]byte{}
	for i := range 200 {
		r := &Result{Query: fmt.Sprint("q", i), Total: 1}
		for h := 0; h < 1+i%10; h++ {
			r.Hits = append(r.Hits, Hit{ID: fmt.Sprintf("IL-%04d", h), Title: fmt.Sprint("title ", i, h), Summary: strings.Repeat(fmt.Sprint("summary ", i, " "), 40)})
		}
		body, err := r.body()
		if err != nil {
			t.Fatal(err)
		}
		z := snappy.Encode(nil, body)
		key := fmt.Sprint("k", i)
		kept[key] = z
		c.put(key, z)
		var held int64
		for el := c.order.Front(); el != nil; el = el.Next() {
			held += int64(el.Value.(*cacheEntry).n)
		}
		if held > max || int64(len(c.ring)) > max {
			t.Fatalf("after %d answers the cache holds %d bytes in a ring of %d, bound %d", i+1, held, len(c.ring), max)
		}
		for k := range c.byKey {
			if got, ok := c.get(k, nil); !ok || !bytes.Equal(got, kept[k]) {
				t.Fatalf("after %d answers, %s comes back as %d bytes, want %d", i+1, k, len(got), len(kept[k]))
			}
		}
	}
	if len(c.byKey) < 10 {
		t.Errorf("a 64 KiB cache holds %d small answers", len(c.byKey))
	}
}

// An answer asked for again and again stays while many others pass
// through and are dropped, as with least-recently-used; one never asked
// for again goes.
func TestCacheKeepsAnswersInUse(t *testing.T) {
	const max = 64 << 10
	c := newResultCache(max, nil)
	defer c.close()
	answer := func(i int) []byte { return bytes.Repeat([]byte{byte(i)}, 3000) }
	c.put("hot", answer(1))
	c.put("cold", answer(2))
	for i := range 500 {
		c.put(fmt.Sprint("k", i), answer(i))
		if got, ok := c.get("hot", nil); !ok || !bytes.Equal(got, answer(1)) {
			t.Fatalf("the answer in use was dropped after %d others", i+1)
		}
	}
	if _, ok := c.get("cold", nil); ok {
		t.Error("an answer not asked for survived 500 others in a ring of 20")
	}
	if c.renewed.Load() == 0 {
		t.Error("the answer in use was never written anew")
	}
}

// Closed, the cache answers nothing and keeps nothing; gets and puts from
// many goroutines are safe (go test -race).
func TestCacheConcurrentAndClosed(t *testing.T) {
	c := newResultCache(256<<10, nil)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				key := fmt.Sprint(i % 50)
				want := bytes.Repeat([]byte(key), 500)
				if got, ok := c.get(key, nil); ok && !bytes.Equal(got, want) {
					t.Errorf("goroutine %d: %s came back wrong", g, key)
					return
				}
				c.put(key, want)
			}
		}()
	}
	wg.Wait()
	c.close()
	c.put("x", []byte("y"))
	if _, ok := c.get("x", nil); ok || c.ring != nil {
		t.Error("a closed cache kept an answer")
	}
}

// An answer from the cache is the answer the search gave, field for field
// (a page or an MCP tool decodes it), and byte for byte as JSON (the API
// writes it without decoding).
func TestCachedAnswerIsTheSearchedOne(t *testing.T) {
	ix := sharedIndex(t)
	reqs := []Request{
		{Query: "gpu driver upgrade"}, {Query: `"memory limit"`}, {Query: "파드 펜딩"}, {Query: "karpneter"},
		{Query: "IL-0171"}, {Query: "dns", Kind: KindPlaybook},
		// No result: the answer carries its help.
		{Query: "kernel panic", Filters: map[library.Facet][]string{library.FacetDomain: {"gpu"}}, Year: []int{2016}},
		{Query: "outage", Filters: map[library.Facet][]string{library.FacetDomain: {"gpu"}}, Page: 2, PerPage: 5},
		{Query: "<script>alert(1)</script> & OOMKilled"},
	}
	for _, r := range reqs {
		fresh, err := ix.searchInTurn(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fresh.JSONParts()
		if err != nil {
			t.Fatal(err)
		}
		ix.Search(context.Background(), r) // fills the cache
		for i := range 2 {
			got, err := ix.Search(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, fresh) {
				t.Errorf("%q: cached Result differs from the searched one:\n%+v\n%+v", r.Query, got, fresh)
			}
			parts, release, err := ix.SearchJSON(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := bytes.Join(parts, nil), bytes.Join(want, nil); !bytes.Equal(a, b) {
				t.Errorf("%q (pass %d): cached JSON differs:\n%.300s\n%.300s", r.Query, i, a, b)
			}
			release()
		}
	}
}

// TestFacetCountsBothWays: counting a result set's facets by its
// documents' values and by each value's documents as a bitset give the same
// counts, for sets from a few documents to the whole shipped library.
func TestFacetCountsBothWays(t *testing.T) {
	ix := sharedIndex(t)
	n := len(ix.byRank)
	rng := rand.New(rand.NewPCG(17, 1))
	for _, share := range []float64{0, 0.01, 0.1, 0.5, 0.9, 1} {
		var ranks []int32
		for r := range n {
			if rng.Float64() < share || share == 1 {
				ranks = append(ranks, int32(r))
			}
		}
		byDoc, bySet := ix.facets.counter(), ix.facets.counter()
		byDoc.pending, bySet.pending = append([]int32(nil), ranks...), append([]int32(nil), ranks...)
		byDoc.countByDoc()
		bySet.countBySet()
		if !slices.Equal(byDoc.counts, bySet.counts) {
			t.Errorf("%d of %d documents: the two ways count differently", len(ranks), n)
		}
		total := 0
		for _, c := range byDoc.counts {
			total += int(c)
		}
		if len(ranks) > 0 && total == 0 {
			t.Errorf("%d documents counted nothing", len(ranks))
		}
	}
}

// TestFirstK: the organisations kept are the ones a full sort puts first.
func TestFirstK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{50, 51, 60, 500} {
		score := make([]int32, n)
		vs := make([]int32, n)
		for i := range vs {
			vs[i], score[i] = int32(i), int32(rng.IntN(20)) // many ties, broken by position
		}
		before := func(a, b int32) int {
			if score[a] != score[b] {
				return int(score[b]) - int(score[a])
			}
			return int(a) - int(b)
		}
		want := slices.Clone(vs)
		slices.SortFunc(want, before)
		got := firstK(slices.Clone(vs), 50, before)
		slices.SortFunc(got, before)
		if !slices.Equal(got, want[:50]) {
			t.Errorf("n=%d: firstK kept %v, want %v", n, got, want[:50])
		}
	}
}
