package triage

import "sort"

// Tree is one decision tree, for one starting symptom. Its nodes may lead
// into another tree's nodes (a Pending GPU pod ends up in the GPU tree), so
// node ids are unique across the whole catalogue, not only within a tree.
type Tree struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Summary string `json:"summary,omitempty"`
	// TitleKo and SummaryKo are the Korean twins of Title and Summary
	// (every text field of a tree has one; see library/README.md).
	TitleKo   string  `json:"title_ko,omitempty"`
	SummaryKo string  `json:"summary_ko,omitempty"`
	Root      bool    `json:"root,omitempty"` // the chooser that starts a triage
	Start     string  `json:"start"`
	Nodes     []*Node `json:"nodes"`
	Path      string  `json:"-"` // file, relative to the library root
	Line      int     `json:"-"`
}

// Node is a question or an outcome; exactly one of Question and Outcome is
// set.
type Node struct {
	ID   string `json:"id"`
	Tree string `json:"tree"`

	Question string `json:"question,omitempty"`
	Help     string `json:"help,omitempty"`
	// QuestionKo and HelpKo are the Korean twins of Question and Help.
	QuestionKo string   `json:"question_ko,omitempty"`
	HelpKo     string   `json:"help_ko,omitempty"`
	Command    string   `json:"command,omitempty"` // shows the evidence that answers the question
	Probe      string   `json:"probe,omitempty"`   // see Probes
	Choices    []Choice `json:"answers,omitempty"`

	Outcome *Outcome `json:"outcome,omitempty"`

	Path string `json:"-"`
	Line int    `json:"-"`
}

// IsOutcome reports whether the walk ends at n.
func (n *Node) IsOutcome() bool { return n.Outcome != nil }

// Choice finds the answer with the given id.
func (n *Node) Choice(id string) (*Choice, bool) {
	for i := range n.Choices {
		if n.Choices[i].ID == id {
			return &n.Choices[i], true
		}
	}
	return nil, false
}

// Choice is one answer to a question and the node it leads to.
type Choice struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// LabelKo is the Korean twin of Label.
	LabelKo string `json:"label_ko,omitempty"`
	Next    string `json:"next"`
	// Layer names the later layer that added the answer to a lower
	// layer's question ("" for the question's own answers).
	Layer string `json:"layer,omitempty"`
	Line  int    `json:"-"`
	Path  string `json:"-"` // set for an added answer: the extend.yaml
}

// Outcome is where a walk ends: a stable route id and the playbook section
// that handles it, with enough to act on before opening the playbook.
type Outcome struct {
	Route      string   `json:"route"`
	Playbook   string   `json:"playbook"`
	Section    string   `json:"section"`
	Diagnosis  string   `json:"diagnosis"`
	Commands   []string `json:"commands"`
	Mitigation []string `json:"mitigation"`
	Verify     []string `json:"verify"`
	// The Korean twins of Diagnosis, Mitigation and Verify; the lists
	// have the same length as the English ones, item for item.
	DiagnosisKo  string   `json:"diagnosis_ko,omitempty"`
	MitigationKo []string `json:"mitigation_ko,omitempty"`
	VerifyKo     []string `json:"verify_ko,omitempty"`
	// Notes are what later layers add to the outcome (a team's own
	// commands, contacts and steps), each under its layer's name.
	Notes []Note `json:"notes,omitempty"`
}

// Catalog is everything loaded from library/triage: the trees and the
// signals. It is read-only after Load and safe for concurrent use.
type Catalog struct {
	Trees   []*Tree   // root first, then by id
	Signals []*Signal // in file order; earlier wins among scheduler reasons
	// Explanations say which routes, when well supported, explain others.
	Explanations []Explanation

	nodes  map[string]*Node
	trees  map[string]*Tree
	routes map[string]*Node // route id -> its first outcome node
	// signalsPath is the signals file, for problems that concern it.
	signalsPath string
	// fragmentLits prefilters lines for fragmentHits; nil means every
	// line is cut into fragments.
	fragmentLits []string
	// filter finds the line signals worth trying on a line.
	filter *lineFilter
}

// Tree returns the tree with the given id.
func (c *Catalog) Tree(id string) (*Tree, bool) {
	t, ok := c.trees[id]
	return t, ok
}

// Root returns the chooser tree a triage starts from, or nil when the
// library has none (lint reports that).
func (c *Catalog) Root() *Tree {
	for _, t := range c.Trees {
		if t.Root {
			return t
		}
	}
	return nil
}

// Node returns the node with the given id, in any tree.
func (c *Catalog) Node(id string) (*Node, bool) {
	n, ok := c.nodes[id]
	return n, ok
}

// Route returns the outcome node of a route id. When several outcomes share
// a route (the LLM latency route ends in a different section per stage), the
// first in file order is the route's home.
func (c *Catalog) Route(id string) (*Node, bool) {
	n, ok := c.routes[id]
	return n, ok
}

// RouteIDs lists every route that has an outcome, sorted.
func (c *Catalog) RouteIDs() []string {
	ids := make([]string, 0, len(c.routes))
	for id := range c.routes {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// index builds the lookup maps after loading. Duplicate ids keep the first
// node; lint reports the duplicates.
func (c *Catalog) index() {
	c.nodes = map[string]*Node{}
	c.trees = map[string]*Tree{}
	c.routes = map[string]*Node{}
	c.fragmentLits = fragmentFilter(c.Signals)
	c.filter = newLineFilter(c.Signals)
	sort.SliceStable(c.Trees, func(i, j int) bool {
		if c.Trees[i].Root != c.Trees[j].Root {
			return c.Trees[i].Root
		}
		return c.Trees[i].ID < c.Trees[j].ID
	})
	for _, t := range c.Trees {
		if _, dup := c.trees[t.ID]; !dup {
			c.trees[t.ID] = t
		}
		for _, n := range t.Nodes {
			if _, dup := c.nodes[n.ID]; !dup {
				c.nodes[n.ID] = n
			}
			if n.Outcome != nil {
				if _, dup := c.routes[n.Outcome.Route]; !dup {
					c.routes[n.Outcome.Route] = n
				}
			}
		}
	}
}

// PlaybookRoutes lists the home outcome of every route that ends in the
// playbook, in catalogue order: the sections of a playbook that the wizard
// and the paste classifier send people to.
func (c *Catalog) PlaybookRoutes(playbook string) []*Outcome {
	var out []*Outcome
	for _, t := range c.Trees {
		for _, n := range t.Nodes {
			if n.Outcome == nil || n.Outcome.Playbook != playbook || c.routes[n.Outcome.Route] != n {
				continue
			}
			out = append(out, n.Outcome)
		}
	}
	return out
}
