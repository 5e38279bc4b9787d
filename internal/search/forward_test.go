package search

import (
	"context"
	"slices"
	"testing"

	index "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"
)

// TestLocateMatchesTermVectors holds the places read from the forward file
// to those bleve's term vectors give, for the relevance set's queries and
// a few phrases, in the top 30 documents of each and in 30 documents that
// do not match at all: the same places, in the same order.
func TestLocateMatchesTermVectors(t *testing.T) {
	ix := sharedIndex(t)
	rd := bleveReader(t, ix)
	queries := []string{`"node pool" upgrade`, `"CrashLoopBackOff"`, "GPU 드라이버 업그레이드", "쿠버네티스 노드 NotReady"}
	for _, c := range relevanceCases(t) {
		queries = append(queries, c.Query)
	}
	places := 0
	for _, q := range queries {
		uq, err := parseQuery(q)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		res, err := ix.Search(context.Background(), Request{Query: q, PerPage: 30})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var ranks []int
		for _, h := range res.Hits {
			ranks = append(ranks, ix.rankByID[h.ID])
		}
		for rank := 0; rank < len(ix.byRank) && rank < 30*7; rank += 7 {
			if !slices.Contains(ranks, rank) {
				ranks = append(ranks, rank)
			}
		}
		p := ix.plan(rd, uq)
		got, err := ix.locate(p, ranks, ix.shown)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		want, err := locateByTermVectors(ix, rd, p, ranks)
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		for _, rank := range ranks {
			g := slices.DeleteFunc(slices.Clone(got[rank]), func(l matchLoc) bool { return l.field == fieldWords })
			if len(g) == 0 && len(want[rank]) == 0 {
				continue
			}
			if diff := cmp.Diff(want[rank], g, cmp.AllowUnexported(matchLoc{})); diff != "" {
				t.Fatalf("%q in %s (-term vectors +forward file):\n%s", q, ix.byRank[rank].id(), diff)
			}
			places += len(g)
		}
	}
	if places < 1000 {
		t.Errorf("compared %d places: the relevance set should give far more", places)
	}
}

// locateByTermVectors is how locate read places before the forward file:
// one bleve reader per (field, term), advanced to each document.
func locateByTermVectors(ix *Index, r index.IndexReader, p *plan, ranks []int) (map[int][]matchLoc, error) {
	order := append([]int(nil), ranks...)
	slices.SortFunc(order, func(a, b int) int { return int(ix.docOf[a]) - int(ix.docOf[b]) })
	out := map[int][]matchLoc{}
	type ft struct{ field, term string }
	done := map[ft]bool{}
	var tfd index.TermFieldDoc
	for _, l := range ix.placedLeaves(p) {
		if !l.positions || l.field == fieldWords {
			continue
		}
		for _, tok := range l.tokens {
			if done[ft{l.field, tok}] {
				continue
			}
			done[ft{l.field, tok}] = true
			tfr, err := r.TermFieldReader(context.Background(), []byte(tok), l.field, false, false, true)
			if err != nil {
				return nil, err
			}
			for _, rank := range order {
				want := ix.docID(rank)
				d, err := tfr.Advance(want, tfd.Reset())
				if err != nil {
					tfr.Close()
					return nil, err
				}
				if d == nil {
					break
				}
				if d.ID.Compare(want) != 0 {
					continue
				}
				for _, v := range d.Vectors {
					array := 0
					if len(v.ArrayPositions) > 0 {
						array = int(v.ArrayPositions[0])
					}
					out[rank] = append(out[rank], matchLoc{field: l.field, term: tok, array: array, pos: int(v.Pos), start: int(v.Start), end: int(v.End)})
				}
			}
			tfr.Close()
		}
	}
	return out, nil
}

// bleveReader is a reader of ix's bleve index, closed with the test.
func bleveReader(t *testing.T, ix *Index) index.IndexReader {
	t.Helper()
	adv, err := ix.bleve.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	rd, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	return rd
}

// TestForwardPlacesRoundTrip reads back the places forwardPart groups by
// term, with segment changes, gaps in positions, overlapping tokens and a
// large term number.
func TestForwardPlacesRoundTrip(t *testing.T) {
	in := []pendingToken{
		{kind: 0, segment: 0, pos: 1, start: 0, end: 4},
		{kind: 2, segment: 0, pos: 3, start: 10, end: 15},
		{kind: 2, segment: 0, pos: 3, start: 10, end: 12}, // same place, shorter
		{kind: 1, segment: 2, pos: 1, start: 0, end: 7},
		{kind: 0, segment: 2, pos: 900, start: 70000, end: 70003},
		{kind: 2, segment: 5, pos: 2, start: 3, end: 9},
	}
	freq := func(k int) int {
		n := 0
		for _, t := range in {
			if int(t.kind) == k {
				n++
			}
		}
		return n
	}
	var order []int32
	part := forwardPart(in, freq, 3, &order)
	at := 0
	for k := range 3 {
		it := fwdPlaces{b: part.places[at : at+int(part.lens[k])]}
		at += int(part.lens[k])
		var got, want []fwdPlace
		for it.next() {
			got = append(got, it.cur)
		}
		if it.err {
			t.Fatalf("term %d: damaged", k)
		}
		for _, t := range in {
			if int(t.kind) == k {
				want = append(want, fwdPlace{t.segment, t.pos, t.start, t.end})
			}
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(fwdPlace{})); diff != "" {
			t.Fatalf("term %d (-written +read):\n%s", k, diff)
		}
	}
	if at != len(part.places) {
		t.Fatalf("%d bytes of places, the lengths add up to %d", len(part.places), at)
	}
	// A cut list is damage, not a shorter list.
	it := fwdPlaces{b: part.places[:part.lens[0]-1]}
	for it.next() {
	}
	if !it.err {
		t.Error("a cut place list read without error")
	}
}
