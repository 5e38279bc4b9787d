package search

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"
)

// The query engine reads the memory fields' posting lists (postings.go) and
// scores in flat arrays indexed by document rank; the arrays cost a few
// additions per posting. bleve's analyzers read the query as they read the
// documents; the positions file (positions.go) places the words of quoted
// phrases, and the forward file (forward.go) the matches of highlights and
// the phrase bonus.

// BM25 parameters, as bleve and Lucene use them.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Bounds on the work of one query (see Search). A query beyond the caps is
// refused with a QueryError; the time box stops the optional work (typo
// neighbours, more words) and marks the result partial.
const (
	maxQueryWords   = 40 // typed words, after quotes are taken out
	maxWordsMatched = 48 // words after Korean splitting (the mask is 64 bits)
	maxPhrases      = 8
	queryTimeBox    = 150 * time.Millisecond
)

// scratch holds the per-query arrays. They are as long as the library and
// reused through a pool, so a query allocates nothing in proportion to it.
type scratch struct {
	total    []float32 // score summed over words, by rank
	mask     []uint64  // words matched, by rank
	wbest    []float32 // best leaf of the current word
	wsum     []float32 // all leaves of the current word
	lcnt     []uint8   // tokens of the current leaf matched
	lsum     []float32 // their score
	wtouched []int32
	ltouched []int32
	cands    []int32  // every rank that matched a word
	pos      [][]byte // the positions of a phrase's terms being read
}

func (ix *Index) getScratch() *scratch {
	if s, ok := ix.pool.Get().(*scratch); ok {
		return s
	}
	n := len(ix.byRank)
	return &scratch{total: make([]float32, n), mask: make([]uint64, n), wbest: make([]float32, n), wsum: make([]float32, n),
		lcnt: make([]uint8, n), lsum: make([]float32, n)}
}

func (ix *Index) putScratch(s *scratch) {
	for _, r := range s.cands {
		s.total[r], s.mask[r] = 0, 0
	}
	s.cands, s.wtouched, s.ltouched = s.cands[:0], s.wtouched[:0], s.ltouched[:0]
	ix.pool.Put(s)
}

// matcher state of one query run.
type run struct {
	ix       *Index
	s        *scratch
	ctx      context.Context
	deadline time.Time
	weights  []float64 // coordination weight of each word and phrase
	partial  bool
	postings int // postings read so far
	checked  int // postings when the time was last checked
}

func (u *run) expired() bool {
	if u.partial {
		return true
	}
	if u.postings-u.checked >= 4096 {
		u.checked = u.postings
		// Let the goroutines waiting for this core run first. A search
		// is the one long piece of CPU work in a request; the rest
		// (reading it, encoding and writing the answer) takes a fraction
		// of a millisecond, and Go lets a running goroutine keep its
		// core for up to 10 ms, so under load that rest queued behind
		// whole searches. It keeps its slot (searchSlots), so no other
		// search starts meanwhile; tail latency under load fell by a
		// third at the same throughput.
		runtime.Gosched()
		if time.Now().After(u.deadline) || u.ctx.Err() != nil {
			u.partial = true
		}
	}
	return u.partial
}

// idf is BM25's inverse document frequency.
func idf(docs, df float64) float64 {
	return math.Log(1 + (docs-df+0.5)/(df+0.5))
}

// leaf adds the matches of one leaf to the current word. It returns the
// leaf's idf (its rarest token), for coordination.
func (u *run) leaf(l leaf) (float64, error) {
	ix, s := u.ix, u.s
	docs := float64(len(ix.byRank))
	avg := ix.avgLen[l.field]
	b := bm25B
	if avg <= 0 {
		b = 0
	}
	mf, ok := memFieldOf(l.field)
	if !ok {
		return 0, fmt.Errorf("search: no postings for field %q", l.field)
	}
	p := &ix.mem.fields[mf]
	single := len(l.tokens) == 1
	best, dead := 0.0, false
	var w float64
	add := func(rank int32, tf, length float64) {
		norm := 1.0
		if b > 0 && length > 0 {
			norm = 1 - b + b*length/avg
		}
		sc := float32(w * tf * (bm25K1 + 1) / (tf + bm25K1*norm))
		if single {
			u.addWord(rank, sc*float32(l.boost))
			return
		}
		if s.lcnt[rank] == 0 {
			s.ltouched = append(s.ltouched, rank)
		}
		s.lcnt[rank]++
		s.lsum[rank] += sc
	}
	for _, tok := range l.tokens {
		t, ok := p.lookup(tok)
		if !ok {
			if !single {
				dead = true // a token no document has: the leaf cannot match
				break
			}
			continue
		}
		df := int(p.df[t])
		w = idf(docs, float64(df))
		best = max(best, w)
		for it := p.iter(t); it.next(); {
			add(it.rank, float64(it.tf), p.length(it.rank))
		}
		u.postings += df
		if u.expired() {
			break
		}
	}
	if !single {
		n := uint8(len(l.tokens))
		for _, rank := range s.ltouched {
			if s.lcnt[rank] == n && !dead {
				u.addWord(rank, s.lsum[rank]*float32(l.boost))
			}
			s.lcnt[rank], s.lsum[rank] = 0, 0
		}
		s.ltouched = s.ltouched[:0]
	}
	return best, nil
}

// facet adds the documents classified under a term the word names.
func (u *run) facet(f facetLeaf) float64 {
	docs := u.ix.facets.docs[f.value]
	if len(docs) == 0 {
		return 0
	}
	w := idf(float64(len(u.ix.byRank)), float64(len(docs)))
	sc := float32(w * f.boost)
	for _, rank := range docs {
		u.addWord(rank, sc)
	}
	u.postings += len(docs)
	return w
}

func (u *run) addWord(rank int32, sc float32) {
	s := u.s
	if s.wsum[rank] == 0 {
		s.wtouched = append(s.wtouched, rank)
	}
	s.wsum[rank] += sc
	if sc > s.wbest[rank] {
		s.wbest[rank] = sc
	}
}

// endWord folds the current word into the totals as word number bit.
func (u *run) endWord(bit int) {
	s := u.s
	for _, rank := range s.wtouched {
		best, sum := s.wbest[rank], s.wsum[rank]
		if s.mask[rank] == 0 {
			s.cands = append(s.cands, rank)
		}
		s.total[rank] += best + tieBreaker*(sum-best)
		s.mask[rank] |= 1 << bit
		s.wbest[rank], s.wsum[rank] = 0, 0
	}
	s.wtouched = s.wtouched[:0]
}

// phrase adds the documents holding a quoted phrase in the "all", "code"
// or Korean field. Candidates are the documents holding every token of the
// phrase that pass keep (the filters, when given); the positions of the
// phrase's terms are read once each and walked beside the candidates.
func (u *run) phrase(p string, bit int, keep func(int) bool) error {
	ix, s := u.ix, u.s
	fields := []struct {
		f  memField
		an analysis.Analyzer
	}{{memAll, ix.english}, {memCode, ix.english}}
	if hasHangul(p) {
		fields = append(fields, struct {
			f  memField
			an analysis.Analyzer
		}{memKo, ix.korean})
	}
	matched := map[int32]bool{}
	for _, f := range fields {
		toks := f.an.Analyze([]byte(p))
		if len(toks) == 0 {
			continue
		}
		post := &ix.mem.fields[f.f]
		of := make([]int, len(toks)) // each token's place in terms
		var terms []int              // the distinct terms, in the vocabulary
		dead := false
		for i, t := range toks {
			k, ok := post.lookup(string(t.Term))
			if !ok {
				dead = true // a token no document holds
				break
			}
			of[i] = slices.Index(terms, k)
			if of[i] < 0 {
				of[i] = len(terms)
				terms = append(terms, k)
			}
		}
		if dead {
			continue
		}
		// Candidates: every distinct token present.
		for _, k := range terms {
			for it := post.iter(k); it.next(); {
				if s.lcnt[it.rank] == 0 {
					s.ltouched = append(s.ltouched, it.rank)
				}
				s.lcnt[it.rank]++
			}
			u.postings += int(post.df[k])
		}
		var cands []int32
		for _, rank := range s.ltouched {
			if int(s.lcnt[rank]) == len(terms) && !matched[rank] && (keep == nil || keep(int(rank))) {
				cands = append(cands, rank)
			}
			s.lcnt[rank] = 0
		}
		s.ltouched = s.ltouched[:0]
		if len(cands) == 0 {
			continue
		}
		slices.Sort(cands)
		// Each term's places in a candidate, as segment<<32 | position,
		// sorted; the buffers are reused across candidates.
		streams := make([]posStream, len(terms))
		places := make([][]uint64, len(terms))
		for j, k := range terms {
			if len(s.pos) <= j {
				s.pos = append(s.pos, nil)
			}
			var err error
			if streams[j], s.pos[j], err = ix.mem.pos.stream(post, k, s.pos[j]); err != nil {
				return err
			}
		}
		for _, rank := range cands {
			for j := range streams {
				var err error
				if places[j], _, err = streams[j].seek(rank, places[j]); err != nil {
					return fmt.Errorf("%w (%s)", err, ix.byRank[rank].id())
				}
			}
			for _, first := range places[of[0]] {
				ok := true
				for i := 1; i < len(toks) && ok; i++ {
					_, ok = slices.BinarySearch(places[of[i]], first+uint64(toks[i].Position-toks[0].Position))
				}
				if ok {
					matched[rank] = true
					u.addWord(rank, phraseWeight)
					break
				}
			}
		}
	}
	u.endWord(bit)
	return nil
}

// tiers of a query, from strict to loose: every significant word, most of
// them, any of them. Search keeps the first tier with enough matches.
type tier int

const (
	allWords tier = iota
	mostWords
	anyWord
)

// selector decides which candidates belong to the result set, and scores
// them with coordination: a document missing words loses the share of the
// query's weight (rarity) that they carry, squared.
type selector struct {
	sig, phrases uint64
	need         int // significant words required in the middle tier
	weights      []float64
	sumWeight    float64
	t            tier
}

func (u *run) selector(p *plan) *selector {
	sel := &selector{weights: u.weights}
	for i, w := range p.words {
		if w.significant {
			sel.sig |= 1 << i
			sel.sumWeight += u.weights[i]
		}
	}
	for j := range p.phrases {
		sel.phrases |= 1 << (len(p.words) + j)
		sel.sumWeight += u.weights[len(p.words)+j]
	}
	sel.need = minShould(bits.OnesCount64(sel.sig))
	return sel
}

func (sel *selector) pass(mask uint64) bool {
	if mask&sel.phrases != sel.phrases {
		return false
	}
	switch sel.t {
	case allWords:
		return mask&sel.sig == sel.sig
	case mostWords:
		return bits.OnesCount64(mask&sel.sig) >= sel.need
	}
	return sel.sig == 0 || mask&sel.sig != 0 || sel.phrases != 0
}

func (sel *selector) coord(mask uint64) float64 {
	if sel.sumWeight == 0 {
		return 1
	}
	got := 0.0
	for m := mask & (sel.sig | sel.phrases); m != 0; m &= m - 1 {
		got += sel.weights[bits.TrailingZeros64(m)]
	}
	return math.Pow(got/sel.sumWeight, coordPower)
}

// match runs the plan: every word's leaves, then the phrases, leaving the
// scores and masks in u.s.
func (u *run) match(p *plan, keep func(int) bool) error {
	u.weights = make([]float64, len(p.words)+len(p.phrases))
	for i, w := range p.words {
		wt := 0.0
		for _, l := range w.leaves {
			if l.boost == boostFuzzy && u.expired() {
				continue // typo neighbours are the first work a time box drops
			}
			x, err := u.leaf(l)
			if err != nil {
				return err
			}
			if l.boost != boostFuzzy && l.boost != boostLatinInKo {
				wt = max(wt, x)
			}
		}
		for _, f := range w.facets {
			wt = max(wt, u.facet(f))
		}
		u.endWord(i)
		u.weights[i] = max(wt, minWordWeight)
		if u.expired() {
			break
		}
	}
	for j, ph := range p.phrases {
		if err := u.phrase(ph, len(p.words)+j, keep); err != nil {
			return err
		}
		u.weights[len(p.words)+j] = phraseWeight * 3
	}
	return nil
}
