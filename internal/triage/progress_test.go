package triage

import "testing"

// TestQuestionsLeft walks every path of the shipped trees from the root:
// the bound "step n of at most m" must never grow as a person answers, a
// path must never take more steps than the bound said, and some path must
// take exactly as many (the bound is the longest path, not a guess).
func TestQuestionsLeft(t *testing.T) {
	cat := loadReal(t)
	start, ok := cat.Node(cat.Root().Start)
	if !ok {
		t.Fatal("no root question")
	}
	bound := cat.QuestionsLeft(start)
	longest, paths := 0, 0
	var walk func(n *Node, asked, prev int, seen map[string]bool)
	walk = func(n *Node, asked, prev int, seen map[string]bool) {
		if n.IsOutcome() {
			paths++
			longest = max(longest, asked)
			if cat.QuestionsLeft(n) != 0 {
				t.Errorf("outcome %s has %d questions left", n.ID, cat.QuestionsLeft(n))
			}
			return
		}
		if seen[n.ID] {
			t.Fatalf("cycle through %s", n.ID)
		}
		now := asked + cat.QuestionsLeft(n)
		if now > prev {
			t.Errorf("at %s after %d answers the bound grew from %d to %d", n.ID, asked, prev, now)
		}
		seen[n.ID] = true
		for _, ch := range n.Choices {
			next, ok := cat.Node(ch.Next)
			if !ok {
				t.Fatalf("%s/%s leads nowhere", n.ID, ch.ID)
			}
			walk(next, asked+1, now, seen)
		}
		delete(seen, n.ID)
	}
	walk(start, 0, bound, map[string]bool{})
	if longest != bound {
		t.Errorf("the longest path asks %d questions, the bound says %d", longest, bound)
	}
	t.Logf("%d paths, at most %d questions", paths, bound)
}

// TestReachable checks that every outcome of the catalogue is reachable
// from the root and that an outcome reaches only itself.
func TestReachable(t *testing.T) {
	cat := loadReal(t)
	start, _ := cat.Node(cat.Root().Start)
	got := map[string]bool{}
	for _, n := range cat.Reachable(start) {
		if !n.IsOutcome() {
			t.Errorf("%s is not an outcome", n.ID)
		}
		got[n.ID] = true
	}
	for _, tr := range cat.Trees {
		for _, n := range tr.Nodes {
			if n.IsOutcome() && !got[n.ID] {
				t.Errorf("outcome %s cannot be reached from the root", n.ID)
			}
			if n.IsOutcome() && (len(cat.Reachable(n)) != 1 || cat.Reachable(n)[0] != n) {
				t.Errorf("outcome %s reaches %d nodes", n.ID, len(cat.Reachable(n)))
			}
		}
	}
}
