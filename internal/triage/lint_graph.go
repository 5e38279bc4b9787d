package triage

import (
	"maps"
	"slices"
	"strings"

	"casebook/internal/library"
)

// graph checks the trees as one graph: every node reachable from some
// tree's start, and no path that comes back on itself (a walk must end).
func (l *linter) graph() {
	reached := map[string]bool{}
	for _, t := range l.c.Trees {
		l.reach(t.Start, reached)
	}
	for _, t := range l.c.Trees {
		for _, n := range t.Nodes {
			if !reached[n.ID] && l.c.nodes[n.ID] == n {
				l.errorf(n.Path, n.Line, "node %s is unreachable: no answer leads to it", n.ID)
			}
		}
	}
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(n *Node)
	visit = func(n *Node) {
		state[n.ID] = onPath
		path = append(path, n.ID)
		for _, ch := range n.Choices {
			next, ok := l.c.nodes[ch.Next]
			if !ok {
				continue
			}
			switch state[next.ID] {
			case onPath:
				i := slices.Index(path, next.ID)
				cycle := append(slices.Clone(path[i:]), next.ID)
				l.errorf(n.Path, ch.Line, "cycle: %s", strings.Join(cycle, " -> "))
			case unseen:
				visit(next)
			}
		}
		path = path[:len(path)-1]
		state[n.ID] = done
	}
	for _, t := range l.c.Trees {
		for _, n := range t.Nodes {
			if state[n.ID] == unseen && l.c.nodes[n.ID] == n {
				visit(n)
			}
		}
	}
}

// reach marks every node reachable from id.
func (l *linter) reach(id string, seen map[string]bool) {
	stack := []string{id}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, ok := l.c.nodes[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		for _, ch := range n.Choices {
			stack = append(stack, ch.Next)
		}
	}
}

// routes checks that every required route is an outcome a person can reach
// from the root chooser.
func (l *linter) routes() {
	reached := map[string]bool{}
	where, line := Dir, 0
	if root := l.c.Root(); root != nil {
		l.reach(root.Start, reached)
		where, line = root.Path, root.Line
	}
	have := map[string]bool{}
	for id, n := range l.c.nodes {
		if n.IsOutcome() && reached[id] {
			have[n.Outcome.Route] = true
		}
	}
	for _, r := range Routes {
		if !have[r] {
			l.errorf(where, line, "route %s has no outcome reachable from the root tree", r)
		}
	}
}

// signals checks that each signal points at something that exists.
func (l *linter) signals() {
	seen := map[string]*Signal{}
	for _, s := range l.c.Signals {
		if prev, dup := seen[s.ID]; dup && prev.Path == s.Path {
			l.errorf(s.Path, s.Line, "signal id %q already used on line %d", s.ID, prev.Line)
		} else if dup {
			l.errorf(s.Path, s.Line, "signal id %q already used at %s:%d", s.ID, prev.Path, prev.Line)
		} else {
			seen[s.ID] = s
		}
		home, ok := l.c.routes[s.Route]
		if !ok {
			l.errorf(s.Path, s.Line, "signal %s: route %q has no outcome", s.ID, s.Route)
			continue
		}
		if s.Section != "" {
			l.section(s.Path, s.Line, "signal "+s.ID, home.Outcome.Playbook, s.Section)
		}
		for _, q := range slices.Sorted(maps.Keys(s.Answers)) {
			a := s.Answers[q]
			n, ok := l.c.nodes[q]
			switch {
			case !ok || n.IsOutcome():
				l.errorf(s.Path, s.Line, "signal %s: no question %q", s.ID, q)
			default:
				if _, ok := n.Choice(a); !ok {
					l.errorf(s.Path, s.Line, "signal %s: question %s has no answer %q", s.ID, q, a)
				}
			}
		}
	}
}

// explanations checks that the routes named in explains have outcomes.
func (l *linter) explanations() {
	for _, e := range l.c.Explanations {
		for _, r := range append([]string{e.Route}, e.Explains...) {
			if _, ok := l.c.routes[r]; !ok {
				l.errorf(e.Path, e.Line, "explains: route %q has no outcome", r)
			}
		}
	}
}

// nearest suggests the closest known anchor for a mistyped one.
func nearest(s string, known []string) string {
	best, bestD := "", len(s)/2+1
	for _, k := range known {
		if d := distance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean #" + best + "?)"
}

// distance is the edit distance used for "did you mean".
func distance(a, b string) int { return library.Levenshtein(a, b) }
