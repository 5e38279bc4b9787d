// Package graph builds the graph that links causes, components, symptoms and
// contributing factors to the cases classified with them. It is pure: the
// caller supplies the incident-term links of the current set.
package graph

import (
	"sort"
	"strings"
)

// Link says that a case is classified with a term of a facet.
type Link struct {
	Case  string
	Facet string // cause, component, symptom, factor
	Term  string
}

// Node is a term or a case. Count is the number of cases a term links to in
// the set, or the number of terms a case links to.
type Node struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"` // cause, component, symptom, factor, case
	Label string `json:"label"`
	// LabelKo is a term's Korean label, filled by the web layer from the
	// taxonomy; pages in Korean draw it.
	LabelKo string `json:"label_ko,omitempty"`
	Count   int    `json:"count"`
}

// Edge joins a case to a term (weight 1) or two terms (weight = the number of
// cases that carry both).
type Edge struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Weight int    `json:"weight"`
	Kind   string `json:"kind"` // "case" or "cooccurrence"
}

// Graph is the whole graph of one set.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// Options shape the graph.
type Options struct {
	// Focus is "facet:term"; when set, only that term, the cases linked to
	// it and their other terms are kept.
	Focus string
	// Label names a node; nil uses ids.
	Label func(kind, id string) string
}

// NodeID is the graph id of a term or a case ("case:IL-0011").
func NodeID(kind, id string) string { return kind + ":" + id }

// Build makes the graph of links.
func Build(links []Link, opt Options) Graph {
	if opt.Focus != "" {
		links = focus(links, opt.Focus)
	}
	label := opt.Label
	if label == nil {
		label = func(_, id string) string { return id }
	}
	nodes := map[string]*Node{}
	var order []string
	node := func(kind, id string) *Node {
		key := NodeID(kind, id)
		if n, ok := nodes[key]; ok {
			return n
		}
		n := &Node{ID: key, Kind: kind, Label: label(kind, id)}
		nodes[key] = n
		order = append(order, key)
		return n
	}
	byCase := map[string][]string{}
	var cases []string
	// Sized for the links up front: the whole library's graph at 10,000
	// incidents grew these through every size on each load.
	seen := make(map[[2]string]bool, len(links))
	edges := make([]Edge, 0, len(links))
	for _, l := range links {
		t := NodeID(l.Facet, l.Term)
		if seen[[2]string{l.Case, t}] {
			continue
		}
		seen[[2]string{l.Case, t}] = true
		c := node("case", l.Case)
		n := node(l.Facet, l.Term)
		c.Count++
		n.Count++
		if _, ok := byCase[l.Case]; !ok {
			cases = append(cases, l.Case)
		}
		byCase[l.Case] = append(byCase[l.Case], t)
		edges = append(edges, Edge{Source: c.ID, Target: t, Weight: 1, Kind: "case"})
	}
	co := map[[2]string]int{}
	for _, c := range cases {
		terms := byCase[c]
		for i := 0; i < len(terms); i++ {
			for j := i + 1; j < len(terms); j++ {
				a, b := terms[i], terms[j]
				if a > b {
					a, b = b, a
				}
				co[[2]string{a, b}]++
			}
		}
	}
	pairs := make([][2]string, 0, len(co))
	for p := range co {
		pairs = append(pairs, p)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if co[pairs[i]] != co[pairs[j]] {
			return co[pairs[i]] > co[pairs[j]]
		}
		return pairs[i][0]+pairs[i][1] < pairs[j][0]+pairs[j][1]
	})
	for _, p := range pairs {
		edges = append(edges, Edge{Source: p[0], Target: p[1], Weight: co[p], Kind: "cooccurrence"})
	}
	g := Graph{Nodes: make([]Node, 0, len(order)), Edges: edges}
	for _, k := range order {
		g.Nodes = append(g.Nodes, *nodes[k])
	}
	if g.Edges == nil {
		g.Edges = []Edge{}
	}
	return g
}

// focus keeps the neighbourhood of one term: its cases and their terms.
func focus(links []Link, f string) []Link {
	facet, term, ok := strings.Cut(f, ":")
	if !ok {
		return links
	}
	keep := map[string]bool{}
	for _, l := range links {
		if l.Facet == facet && l.Term == term {
			keep[l.Case] = true
		}
	}
	var out []Link
	for _, l := range links {
		if keep[l.Case] {
			out = append(out, l)
		}
	}
	return out
}

// TopTerms returns the terms of a facet by descending case count.
func (g Graph) TopTerms(kind string, n int) []Node {
	var out []Node
	for _, nd := range g.Nodes {
		if nd.Kind == kind {
			out = append(out, nd)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Count > out[j].Count })
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
