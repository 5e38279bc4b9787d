package search

import (
	"context"
	"testing"
)

// A query whose time is up stops the optional work (typo neighbours, more
// words) and says its result is partial, instead of burning the CPU a long
// query of common words would. The time box checks the request's context
// as well as its own deadline, so an ended context stands in for a spent
// box; the words are common enough in the library to pass the first check.
func TestSearchStopsWhenItsTimeIsUp(t *testing.T) {
	q := "pod node gpu driver the a of to in cluster kubernetes memory error failed timeout network service container scheduler cpu"
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := sharedIndex(t).Search(ctx, Request{Query: q, PerPage: 10})
	if err != nil {
		t.Fatalf("a search out of time: %v, want a partial result", err)
	}
	if !res.Partial {
		t.Errorf("a search out of time ran to the end (%d results), want it marked partial", res.Total)
	}
}
