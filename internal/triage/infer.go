package triage

import "casebook/internal/i18n"

// inferAnswers turns the best route of a paste into tree answers: every
// answer that lies on all paths from the root chooser to the route's
// outcome (a taint message means "Pending" and "the event says taint",
// whatever else is true), and the answers the route's signals name.
func (c *Catalog) inferAnswers(best RouteMatch, hits []hit) map[string]Answer {
	target := c.routes[best.Route]
	for _, n := range c.nodes {
		if n.IsOutcome() && n.Outcome.Route == best.Route && n.Outcome.Section == best.Section {
			target = n
			break
		}
	}
	root := c.Root()
	if target == nil || root == nil {
		return nil
	}
	ev := evidence(hits)
	out := map[string]Answer{}
	dom := c.dominators(root.Start, target.ID)
	if len(dom) == 0 {
		// The outcome is reachable from several symptoms (a Pending GPU pod
		// can also be reached from "GPU missing"). The route's own tree
		// still decides: take the answers on every path from that tree's
		// start, and the root answer that enters the tree.
		dom = c.treeDominators(root, target)
	}
	byRoute := i18n.M("infer.route", "route", best.Route)
	for q, choice := range dom {
		out[q] = Answer{Value: choice, Known: true, Evidence: ev, Note: byRoute.English(), NoteMsg: byRoute}
	}
	for _, h := range hits {
		bySignal := i18n.M("infer.signal", "signal", h.sig.ID)
		for q, choice := range h.sig.Answers {
			if _, ok := out[q]; !ok {
				out[q] = Answer{Value: choice, Known: true, Evidence: ev, Note: bySignal.English(), NoteMsg: bySignal}
			}
		}
	}
	return out
}

// dominators returns the answers (question id -> choice id) taken on every
// path from start to target; nil when target cannot be reached.
func (c *Catalog) dominators(start, target string) map[string]string {
	preds := map[string][][2]string{} // node -> (question, choice) pairs leading to it
	for _, n := range c.nodes {
		for _, ch := range n.Choices {
			preds[ch.Next] = append(preds[ch.Next], [2]string{n.ID, ch.ID})
		}
	}
	memo := map[string]map[string]string{}
	visiting := map[string]bool{}
	var dom func(id string) (map[string]string, bool)
	dom = func(id string) (map[string]string, bool) {
		if id == start {
			return map[string]string{}, true
		}
		if d, ok := memo[id]; ok {
			return d, d != nil
		}
		if visiting[id] {
			return nil, false // a cycle; lint reports it
		}
		visiting[id] = true
		defer delete(visiting, id)
		var acc map[string]string
		for _, p := range preds[id] {
			d, ok := dom(p[0])
			if !ok {
				continue
			}
			withEdge := map[string]string{p[0]: p[1]}
			for k, v := range d {
				withEdge[k] = v
			}
			if acc == nil {
				acc = withEdge
				continue
			}
			for k, v := range acc {
				if withEdge[k] != v {
					delete(acc, k)
				}
			}
		}
		memo[id] = acc
		return acc, acc != nil
	}
	d, _ := dom(target)
	return d
}

// treeDominators is dominators within the tree that holds target, plus the
// root chooser's answer that leads to that tree's start.
func (c *Catalog) treeDominators(root *Tree, target *Node) map[string]string {
	t, ok := c.trees[target.Tree]
	if !ok || t.Root {
		return nil
	}
	dom := c.dominators(t.Start, target.ID)
	if dom == nil {
		return nil
	}
	if start, ok := c.nodes[root.Start]; ok {
		for _, ch := range start.Choices {
			if ch.Next == t.Start {
				dom[start.ID] = ch.ID
				break
			}
		}
	}
	return dom
}
