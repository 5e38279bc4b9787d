package search

import (
	"container/heap"
	"context"
	"fmt"
	"html"
	mbits "math/bits"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"casebook/internal/library"
)

// rescoreWindow is how many of the best matches get the phrase bonus. A
// bonus moves a document up within this window only, so the order of
// later pages does not depend on which page was asked for.
const rescoreWindow = 30

// strictEnough is how many documents matching every word make the looser
// tiers unnecessary. It does not depend on the page or on the kind tab, so
// every page and every tab of a result comes from the same tier.
const strictEnough = 20

// Search runs r. An empty query lists the filtered documents in library
// order (newest incident first, then playbooks); a query that cannot be
// read returns a *QueryError.
//
// The kind (incident or playbook) selects a tab of one result: the tier,
// the total of each tab (Facets["kind"]) and the "all" tab are computed
// without it, so "All" is always the union of the tabs.
//
// Answers come from the index's result cache when the same request (up to
// case and spacing) was answered before, decoded afresh for each caller.
func (ix *Index) Search(ctx context.Context, r Request) (*Result, error) {
	if ix.cache == nil {
		return ix.searchInTurn(ctx, r)
	}
	key := cacheKey(r)
	if z, release, ok := ix.cached(key); ok {
		res, err := resultOf(r.Query, z)
		release()
		if err == nil {
			return res, nil
		}
	}
	res, _, release, err := ix.searchAndKeep(ctx, r, key)
	if err != nil {
		return nil, err
	}
	release()
	return res, nil
}

// SearchJSON answers r as Search does, as the pieces of its JSON
// (Result.JSONParts), and from the cache without decoding the answer into
// a Result: what the JSON API writes. The caller calls release once it has
// written the pieces, and not before: they may share a reused buffer.
func (ix *Index) SearchJSON(ctx context.Context, r Request) (parts [][]byte, release func(), err error) {
	var key string
	if ix.cache != nil {
		key = cacheKey(r)
		if z, releaseZ, ok := ix.cached(key); ok {
			body, release, err := unpackPooled(z)
			releaseZ()
			if err == nil {
				return jsonParts(r.Query, body), release, nil
			}
		}
	}
	res, body, release, err := ix.searchAndKeep(ctx, r, key)
	if err != nil {
		return nil, nil, err
	}
	return jsonParts(res.Query, body), release, nil
}

// cached copies the answer kept under key into a pooled buffer; release
// gives the buffer back.
func (ix *Index) cached(key string) (z []byte, release func(), ok bool) {
	bp, release := borrow()
	z, ok = ix.cache.get(key, *bp)
	*bp = z[:0] // the grown buffer goes back to the pool
	if !ok {
		release()
		return nil, func() {}, false
	}
	return z, release, true
}

// searchAndKeep runs r, encodes its answer and, when the index has a
// cache and the answer is whole, keeps it there under key. The caller
// calls release once done with body.
func (ix *Index) searchAndKeep(ctx context.Context, r Request, key string) (_ *Result, body []byte, release func(), err error) {
	res, err := ix.searchInTurn(ctx, r)
	if err != nil {
		return nil, nil, nil, err
	}
	if body, release, err = res.pooledBody(); err != nil {
		return nil, nil, nil, err
	}
	if ix.cache != nil && !res.Partial {
		ix.cache.keep(key, body)
	}
	return res, body, release, nil
}

// searchInTurn runs r when the index's turns (Options.Turns) admit it,
// first come first served (a channel's blocked senders are woken in
// order). Searches are CPU work: run all at once, each gets a slice of the
// cores, and an expensive query among sixteen takes sixteen times its own
// time while holding its memory; in turn, a request waits for the few
// ahead of it and then runs at full speed. The query's time box starts
// when its turn comes.
func (ix *Index) searchInTurn(ctx context.Context, r Request) (*Result, error) {
	if ix.turns == nil {
		return ix.search(ctx, r)
	}
	select {
	case ix.turns <- struct{}{}:
	case <-ctx.Done():
		// Out of time before its turn: run without one, which stops at
		// the first check and answers partial, as a search whose time ran
		// out while running does.
		return ix.search(ctx, r)
	}
	defer func() { <-ix.turns }()
	return ix.search(ctx, r)
}

func (ix *Index) search(ctx context.Context, r Request) (*Result, error) {
	page, perPage, err := paging(r)
	if err != nil {
		return nil, err
	}
	filter := ix.compileFilter(r)
	uq, err := parseQuery(r.Query)
	if err != nil {
		return nil, err
	}
	from := (page - 1) * perPage
	res := &Result{Query: r.Query, Hits: []Hit{}, SuggestedFilters: []Suggestion{}}
	if uq.empty() {
		c := ix.list(filter, from, perPage)
		res.Total, res.Facets = c.total, c.facets.result()
		c.facets.release()
		res.Facets[facetKind] = c.kinds
		for _, d := range c.top {
			res.Hits = append(res.Hits, ix.hit(d, nil, nil, shown{}))
		}
		if res.Total == 0 {
			res.Help = ix.help(filter, nil, nil, uq)
		}
		return res, nil
	}

	u := &run{ix: ix, s: ix.getScratch(), ctx: ctx, deadline: time.Now().Add(queryTimeBox)}
	defer func() { ix.putScratch(u.s) }()
	p := ix.plan(uq)
	var best *Best
	if route, pb, section := ix.router.route(uq, p); route != "" {
		if rank, ok := ix.rankByID[pb]; ok && ix.byRank[rank].playbook != nil {
			p.best, best = rank, ix.best(route, pb, section)
		}
	}
	// Phrases are checked only in documents that pass the filters; the
	// zero-result help, which counts results without each filter, reruns
	// the match unfiltered.
	if err := u.match(p, filter.keepBase); err != nil {
		return nil, fmt.Errorf("search: %q: %w", r.Query, err)
	}
	sel := u.selector(p)
	c := ix.gather(u, sel, p, filter, max(from+perPage, rescoreWindow))
	if c.total == 0 && len(p.phrases) > 0 && len(filter.groups) > 0 {
		c.facets.release()
		ix.putScratch(u.s)
		u = &run{ix: ix, s: ix.getScratch(), ctx: ctx, deadline: u.deadline}
		if err := u.match(p, nil); err != nil {
			return nil, fmt.Errorf("search: %q: %w", r.Query, err)
		}
		sel = u.selector(p)
		c = ix.gather(u, sel, p, filter, max(from+perPage, rescoreWindow))
	}

	res.Total, res.Facets, res.Partial = c.total, c.facets.result(), u.partial
	res.Facets[facetKind] = c.kinds
	res.Exact = c.exact
	if c.best {
		res.Best = best
	}
	res.SuggestedFilters = ix.suggestions(r, p, c)
	c.facets.release()
	c.facets = nil
	if c.total == 0 {
		res.Help = ix.help(filter, u, sel, uq)
	}
	if len(c.top) == 0 {
		return res, nil
	}

	// Positions for the window (phrase bonus) and the page (highlights).
	end := min(from+perPage, len(c.top))
	res.Hits = make([]Hit, 0, max(0, end-from))
	win := c.top[:min(rescoreWindow, len(c.top))]
	need := map[int]bool{}
	var ranks []int
	for _, d := range append(append([]scored{}, win...), c.top[min(from, end):end]...) {
		if !need[d.rank] {
			need[d.rank] = true
			ranks = append(ranks, d.rank)
		}
	}
	docs := map[int]*document{}
	doc := func(rank int) *document {
		if d, ok := docs[rank]; ok {
			return d
		}
		d := ix.shown(rank)
		docs[rank] = d
		return d
	}
	locs, err := ix.locate(p, ranks, doc)
	if err != nil {
		return nil, fmt.Errorf("search: %q: %w", r.Query, err)
	}
	for i, d := range win {
		if d.score >= bestScore {
			continue
		}
		if b := phraseBonus(p.tokens, locs[d.rank], func() *document { return doc(d.rank) }); b > 0 {
			win[i].score = d.score * (1 + b)
		}
	}
	sort.Slice(win, func(i, j int) bool { return better(win[i], win[j]) })
	for _, d := range c.top[min(from, end):end] {
		res.Hits = append(res.Hits, ix.hit(d, locs[d.rank], func() *document { return doc(d.rank) }, shown{korean: p.korean, ko: r.Lang.Korean()}, p.named...))
	}
	return res, nil
}

// playbookPrior favours a playbook that treats a symptom the query names
// (see gather).
const playbookPrior = 1.3

// exactScore marks the document whose id the query is: it ranks first.
// bestScore marks the playbook of the route the query names: it ranks
// next.
const (
	exactScore = math32Max
	bestScore  = math32Max / 2
)

const math32Max = 3.4e38

// gather walks the candidates once: it picks the tier, applies the filters,
// counts the tabs and facets, and keeps the best k.
func (ix *Index) gather(u *run, sel *selector, p *plan, filter *docFilter, k int) *collection {
	s := u.s
	// The tier is chosen for each kind on its own, on the result without
	// the kind tab: a query whose most words only one playbook holds must
	// not leave the incidents tab empty while incidents match fewer of
	// them. "All" stays the union of the tabs.
	// One pass counts, per kind, the candidates each tier would keep. The
	// kinds are two (incident, playbook), so they are kept in a short list
	// walked per candidate rather than a map looked up per candidate.
	type kindTier struct {
		kind int32
		n    [3]int
		t    tier
	}
	var byKind []kindTier
	lookup := func(k int32) *kindTier {
		for i := range byKind {
			if byKind[i].kind == k {
				return &byKind[i]
			}
		}
		return nil
	}
	for _, rank := range s.cands {
		if !filter.keepBase(int(rank)) {
			continue
		}
		kt := lookup(ix.facets.kind[rank])
		if kt == nil {
			byKind = append(byKind, kindTier{kind: ix.facets.kind[rank]})
			kt = &byKind[len(byKind)-1]
		}
		for t := allWords; t <= anyWord; t++ {
			sel.t = t
			if sel.pass(s.mask[rank]) {
				kt.n[t]++
			}
		}
	}
	for i := range byKind {
		kt := &byKind[i]
		for _, t := range []tier{allWords, mostWords, anyWord} {
			if t == mostWords && sel.need == mbits.OnesCount64(sel.sig) {
				continue
			}
			kt.t = t
			if kt.n[t] >= strictEnough || t != allWords && kt.n[t] > 0 {
				break
			}
		}
	}
	c := &collection{facets: ix.facets.counter()}
	kinds := ix.facets.counter()
	h := &worstFirst{}
	push := func(d scored) {
		if h.Len() < k {
			heap.Push(h, d)
		} else if k > 0 && better(d, (*h)[0]) {
			(*h)[0] = d
			heap.Fix(h, 0)
		}
	}
	// A playbook that treats a symptom the query names is the answer to
	// that symptom more than any one incident showing it.
	var treats []bool
	for _, tm := range p.named {
		if tm.term.Facet != library.FacetSymptom {
			continue
		}
		if v, ok := ix.facets.index[string(library.FacetSymptom)+"\x00"+tm.term.ID]; ok {
			if treats == nil {
				treats = make([]bool, len(ix.facets.values))
			}
			treats[v] = true
		}
	}
	exact := -1
	if p.exact >= 0 && filter.keep(p.exact) {
		exact = p.exact
		c.exact = ix.byRank[exact].id()
		kinds.addKind(exact)
		c.total++
		c.facets.add(exact)
		push(scored{rank: exact, score: exactScore})
	}
	best := -1
	if p.best >= 0 && p.best != exact && filter.keep(p.best) {
		best = p.best
		c.best = true
		kinds.addKind(best)
		c.total++
		c.facets.add(best)
		push(scored{rank: best, score: bestScore})
	}
	for _, r := range s.cands {
		rank := int(r)
		sel.t = allWords // a kind no candidate passing the filters has
		if kt := lookup(ix.facets.kind[rank]); kt != nil {
			sel.t = kt.t
		}
		if rank == exact || rank == best || !sel.pass(s.mask[rank]) || !filter.keepBase(rank) {
			continue
		}
		kinds.addKind(rank)
		if !filter.keepKind(rank) {
			continue
		}
		c.total++
		c.facets.add(rank)
		sc := float64(s.total[rank]) * sel.coord(s.mask[rank])
		if treats != nil && ix.byRank[rank].playbook != nil {
			for _, v := range ix.facets.byDoc[rank] {
				if treats[v] {
					sc *= playbookPrior
					break
				}
			}
		}
		push(scored{rank: rank, score: sc})
	}
	c.top = []scored(*h)
	sort.Slice(c.top, func(i, j int) bool { return better(c.top[i], c.top[j]) })
	c.kinds = kinds.result()[facetKind]
	kinds.release()
	return c
}

// hit renders one result.
func (ix *Index) hit(d scored, locs []matchLoc, doc func() *document, sh shown, named ...termMatch) Hit {
	src := ix.byRank[d.rank]
	hit := Hit{ID: src.id(), Score: d.score}
	switch d.score {
	case exactScore:
		hit.Score, hit.Exact = 0, true
	case bestScore:
		hit.Score, hit.Best = 0, true
	}
	if src.incident != nil {
		hit.Kind, hit.Title, hit.Summary = KindIncident, src.incident.Title, src.incident.Summary
		hit.TitleKo, hit.SummaryKo = src.incident.TitleKo, src.incident.SummaryKo
	} else {
		hit.Kind, hit.Title, hit.Summary = KindPlaybook, src.playbook.Title, src.playbook.Summary
		if ko := src.playbook.Ko; ko != nil {
			hit.TitleKo, hit.SummaryKo = ko.Title, ko.Summary
		}
	}
	if len(locs) > 0 && doc != nil {
		hit.Fragments = fragments(doc(), locs, sh)
	}
	if t := ix.termFragments(d.rank, named); len(t) > 0 {
		if hit.Fragments == nil {
			hit.Fragments = map[string][]string{}
		}
		hit.Fragments["terms"] = t
	}
	return hit
}

// idQuery is an incident id as people type it: IL-0171, il-171, 0171, 171;
// teamIDQuery is a team layer's id: ACME-0007, acme-7.
var (
	idQuery     = regexp.MustCompile(`(?i)^(?:il-?)?(\d{1,6})$`)
	teamIDQuery = regexp.MustCompile(`(?i)^([a-z][a-z0-9]{1,9})-(\d{1,6})$`)
)

// exactRank is the rank of the document the query names by id, or -1.
func (ix *Index) exactRank(q *userQuery) int {
	if len(q.phrases) > 0 || len(q.words) != 1 {
		return -1
	}
	w := strings.TrimSpace(q.words[0])
	if m := idQuery.FindStringSubmatch(w); m != nil {
		n, err := strconv.Atoi(m[1])
		if err == nil {
			id := fmt.Sprintf("IL-%04d", n)
			if rank, ok := ix.rankByID[id]; ok {
				return rank
			}
		}
		return -1
	}
	if m := teamIDQuery.FindStringSubmatch(w); m != nil {
		if n, err := strconv.Atoi(m[2]); err == nil {
			if rank, ok := ix.rankByID[fmt.Sprintf("%s-%04d", strings.ToUpper(m[1]), n)]; ok {
				return rank
			}
		}
	}
	if rank, ok := ix.rankByID[strings.ToLower(w)]; ok && ix.byRank[rank].playbook != nil {
		return rank
	}
	return -1
}

func paging(r Request) (page, perPage int, err error) {
	page, perPage = max(r.Page, 1), r.PerPage
	switch {
	case r.Page < 0:
		return 0, 0, badQueryMsg("query.page_start", "page", strconv.Itoa(r.Page))
	case perPage < 0 || perPage > MaxPerPage:
		return 0, 0, badQueryMsg("query.per_page", "count", strconv.Itoa(perPage), "max", strconv.Itoa(MaxPerPage))
	case perPage == 0:
		perPage = DefaultPerPage
	}
	if page > LastPage(perPage) {
		return 0, 0, badQueryMsg("query.page_end", "page", strconv.Itoa(page), "max", strconv.Itoa(LastPage(perPage)))
	}
	return page, perPage, nil
}

// suggestions are the terms the query names, minus filters already applied,
// each with the number of results it would keep. A term none of the results
// carries is not offered: it would empty the page.
func (ix *Index) suggestions(r Request, p *plan, c *collection) []Suggestion {
	out := []Suggestion{}
	for _, tm := range p.named {
		if len(out) == maxSuggestions {
			break
		}
		s := Suggestion{Facet: tm.term.Facet, Term: tm.term.ID, Label: tm.term.Label, LabelKo: tm.term.LabelKo}
		if slices.Contains(r.Filters[s.Facet], s.Term) {
			continue
		}
		s.Count = c.facets.count(string(s.Facet), s.Term)
		if s.Count > 0 || c.total == 0 {
			out = append(out, s)
		}
	}
	return out
}

// termFragments names the terms of the query the document is classified
// under, as "Symptom: <mark>Untolerated taint</mark>": the reason a document
// that never uses the query's words is in the results.
func (ix *Index) termFragments(rank int, named []termMatch) []string {
	var out []string
	seen := map[*library.Term]bool{}
	for _, tm := range named {
		if seen[tm.term] {
			continue
		}
		seen[tm.term] = true
		if ix.facets.has(rank, string(tm.term.Facet), tm.term.ID) {
			out = append(out, html.EscapeString(tm.term.Facet.Label())+": <mark>"+html.EscapeString(tm.term.Label)+"</mark>")
		}
	}
	return out
}
