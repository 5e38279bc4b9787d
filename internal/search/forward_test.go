package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
