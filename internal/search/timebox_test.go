package search

import (
	"context"
	"testing"
	"time"
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

// Searches take turns for the cores: with every slot taken, a search waits
// for one (and then runs whole); one whose time is already up does not
// wait, it answers partial at once.
func TestSearchWaitsItsTurn(t *testing.T) {
	ix := sharedIndex(t)
	for range cap(ix.turns) {
		ix.turns <- struct{}{}
	}
	freed := false
	free := func() {
		if !freed {
			for range cap(ix.turns) {
				<-ix.turns
			}
			freed = true
		}
	}
	defer free()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	long := "pod node gpu driver the a of to in cluster kubernetes memory error failed timeout network service container scheduler cpu"
	res, err := ix.searchInTurn(ctx, Request{Query: long})
	if err != nil || !res.Partial {
		t.Fatalf("a search out of time with every slot taken: partial=%v, %v; want a partial answer at once", res != nil && res.Partial, err)
	}

	done := make(chan *Result, 1)
	go func() {
		res, err := ix.searchInTurn(context.Background(), Request{Query: "kernel panic"})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	select {
	case <-done:
		t.Fatal("a search ran while every slot was taken")
	case <-time.After(200 * time.Millisecond):
	}
	free()
	if res := <-done; res == nil || res.Partial || res.Total == 0 {
		t.Errorf("after its turn came the search answered %+v, want a whole answer", res)
	}
}
