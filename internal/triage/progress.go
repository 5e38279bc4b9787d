package triage

// QuestionsLeft is the most questions a person may still be asked from n
// to an outcome, n included (0 at an outcome): the longest chain of
// questions below it. With the answers given so far it bounds the walk,
// "step 3 of at most 7", without promising a length the tree may not keep.
func (c *Catalog) QuestionsLeft(n *Node) int {
	memo := map[string]int{}
	var depth func(n *Node, onPath map[string]bool) int
	depth = func(n *Node, onPath map[string]bool) int {
		if n.IsOutcome() {
			return 0
		}
		if d, ok := memo[n.ID]; ok {
			return d
		}
		// Lint rejects cycles; a broken catalogue must not hang a page.
		if onPath[n.ID] {
			return 0
		}
		onPath[n.ID] = true
		best := 0
		for _, ch := range n.Choices {
			if next, ok := c.nodes[ch.Next]; ok {
				best = max(best, depth(next, onPath))
			}
		}
		delete(onPath, n.ID)
		memo[n.ID] = best + 1
		return best + 1
	}
	return depth(n, map[string]bool{})
}

// Reachable lists the outcomes a walk can still end in from n, in the
// order the branches list them, each once: what "not sure" shows under
// every answer, so a person can choose by where each leads.
func (c *Catalog) Reachable(n *Node) []*Node {
	var out []*Node
	seen := map[string]bool{}
	var walk func(n *Node)
	walk = func(n *Node) {
		if seen[n.ID] {
			return
		}
		seen[n.ID] = true
		if n.IsOutcome() {
			out = append(out, n)
			return
		}
		for _, ch := range n.Choices {
			if next, ok := c.nodes[ch.Next]; ok {
				walk(next)
			}
		}
	}
	walk(n)
	return out
}
