package triage

import (
	"fmt"
	"regexp"
	"strings"

	"casebook/internal/i18n"
)

// Given is one answer in a walk state. Inferred answers came from a probe or
// a paste rather than from the person; the UI marks them and lets the
// person override them.
type Given struct {
	Question string
	Choice   string
	Inferred bool
}

// State is everything needed to resume a walk, small enough for a URL: the
// tree it started in and the answers so far, "q1=a,q2~b" (= given by the
// person, ~ inferred). Back and restart are State.Back and State{Tree: id}.
type State struct {
	Tree    string
	Answers []Given
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// ParseState reads the answers part of a walk state as written by
// State.Encode. An empty string is a walk that has not started.
func ParseState(tree, answers string) (State, error) {
	s := State{Tree: tree}
	if !idPattern.MatchString(tree) {
		return s, stateError("walk.bad_tree_id", "tree", i18n.Quote(tree))
	}
	if answers == "" {
		return s, nil
	}
	for _, part := range strings.Split(answers, ",") {
		q, c, ok := strings.Cut(part, "=")
		inferred := false
		if !ok {
			q, c, ok = strings.Cut(part, "~")
			inferred = true
		}
		if !ok || !idPattern.MatchString(q) || !idPattern.MatchString(c) {
			return s, stateError("walk.bad_answer", "answer", i18n.Quote(part))
		}
		s.Answers = append(s.Answers, Given{Question: q, Choice: c, Inferred: inferred})
	}
	return s, nil
}

// Encode writes the answers the way ParseState reads them.
func (s State) Encode() string {
	parts := make([]string, len(s.Answers))
	for i, g := range s.Answers {
		sep := "="
		if g.Inferred {
			sep = "~"
		}
		parts[i] = g.Question + sep + g.Choice
	}
	return strings.Join(parts, ",")
}

// Back drops the last answer.
func (s State) Back() State {
	if len(s.Answers) == 0 {
		return s
	}
	return State{Tree: s.Tree, Answers: s.Answers[: len(s.Answers)-1 : len(s.Answers)-1]}
}

// With records the person's answer to a question, replacing any earlier
// (possibly inferred) answer to it.
func (s State) With(question, choice string) State {
	out := State{Tree: s.Tree}
	for _, g := range s.Answers {
		if g.Question != question {
			out.Answers = append(out.Answers, g)
		}
	}
	out.Answers = append(out.Answers, Given{Question: question, Choice: choice})
	return out
}

// StateError is a walk state that does not fit the catalogue: a typo in a
// shared URL, or a link made before the trees changed. The web layer turns
// it into 400 Bad Request.
type StateError struct {
	Msg string
	// M is Msg as a catalogue message, which pages show in their language.
	M i18n.Msg
}

func stateError(key string, args ...any) *StateError {
	m := i18n.M(key, args...)
	return &StateError{Msg: m.English(), M: m}
}

// Message is the catalogue message (i18n.Localized); "triage: " is left
// out, as pages show it.
func (e *StateError) Message() i18n.Msg { return e.M }

func (e *StateError) Error() string { return "triage: " + e.Msg }

// Source says who answered a question.
type Source string

const (
	SourcePerson Source = "person" // answered in the wizard
	SourceProbe  Source = "probe"  // answered by a Prober from the live cluster
	SourcePaste  Source = "paste"  // implied by a pasted text (or carried in the URL as inferred)
)

// Step is one answered question on the way: a breadcrumb.
type Step struct {
	Node     *Node
	Choice   *Choice
	Source   Source
	Evidence []Evidence
	Note     string
	NoteMsg  i18n.Msg // Note as a catalogue message, when the prober gave one
}

// Walk is the result of replaying a state: the breadcrumbs and the node the
// person is at, a question still to answer or an outcome.
type Walk struct {
	Tree  *Tree
	Steps []Step
	Node  *Node
}

// Hints are answers the person did not have to give. Cluster is consulted
// for questions that name a probe; Paste holds answers by question id, as
// in Result.Answers. Either may be nil.
type Hints struct {
	Cluster Prober
	Paste   map[string]Answer
}

// Next follows one answer from a question.
func (c *Catalog) Next(n *Node, choice string) (*Node, error) {
	if n.IsOutcome() {
		return nil, stateError("walk.outcome_answered", "node", n.ID)
	}
	ch, ok := n.Choice(choice)
	if !ok {
		return nil, stateError("walk.no_answer", "question", n.ID, "answer", i18n.Quote(choice))
	}
	next, ok := c.nodes[ch.Next]
	if !ok {
		return nil, fmt.Errorf("triage: answer %s of %s leads to missing node %q", choice, n.ID, ch.Next)
	}
	return next, nil
}

// Walk replays a state from its tree's start. At each question it takes, in
// order, the answer in the state, then the cluster probe's, then the
// paste's; it stops at the first question nobody answered, or at an
// outcome. Answers in the state that the walk never reached are an error,
// so a stale link is not silently reinterpreted.
func (c *Catalog) Walk(s State, h Hints) (*Walk, error) {
	t, ok := c.trees[s.Tree]
	if !ok {
		return nil, stateError("walk.no_tree", "tree", i18n.Quote(s.Tree))
	}
	given := map[string]Given{}
	for _, g := range s.Answers {
		if _, dup := given[g.Question]; dup {
			return nil, stateError("walk.answered_twice", "question", g.Question)
		}
		given[g.Question] = g
	}
	n, ok := c.nodes[t.Start]
	if !ok {
		return nil, fmt.Errorf("triage: tree %s starts at missing node %q", t.ID, t.Start)
	}
	w := &Walk{Tree: t}
	used := 0
	// A well-formed catalogue has no cycles; the bound keeps a broken one
	// from hanging a request.
	for range len(c.nodes) + 1 {
		if n.IsOutcome() {
			break
		}
		step, ok := c.answer(n, given, h)
		if !ok {
			break
		}
		if _, inState := given[n.ID]; inState {
			used++
		}
		next, err := c.Next(n, step.Choice.ID)
		if err != nil {
			return nil, err
		}
		w.Steps = append(w.Steps, step)
		n = next
	}
	w.Node = n
	if used != len(given) {
		for _, g := range s.Answers {
			if !w.visited(g.Question) {
				return nil, stateError("walk.off_path", "question", g.Question)
			}
		}
	}
	return w, nil
}

// answer finds an answer for question n, or reports false when the person
// has to be asked.
func (c *Catalog) answer(n *Node, given map[string]Given, h Hints) (Step, bool) {
	if g, ok := given[n.ID]; ok {
		ch, ok := n.Choice(g.Choice)
		if !ok {
			// Reported by Walk through Next with the bad choice id.
			return Step{Node: n, Choice: &Choice{ID: g.Choice}}, true
		}
		src := SourcePerson
		if g.Inferred {
			src = SourcePaste
		}
		return Step{Node: n, Choice: ch, Source: src}, true
	}
	if h.Cluster != nil && n.Probe != "" {
		if a := h.Cluster.Probe(n.Probe); a.Known {
			if ch, ok := n.Choice(a.Value); ok {
				return Step{Node: n, Choice: ch, Source: SourceProbe, Evidence: a.Evidence, Note: a.Note, NoteMsg: a.NoteMsg}, true
			}
		}
	}
	if a, ok := h.Paste[n.ID]; ok && a.Known {
		if ch, ok := n.Choice(a.Value); ok {
			return Step{Node: n, Choice: ch, Source: SourcePaste, Evidence: a.Evidence, Note: a.Note, NoteMsg: a.NoteMsg}, true
		}
	}
	return Step{}, false
}

func (w *Walk) visited(question string) bool {
	for _, s := range w.Steps {
		if s.Node.ID == question {
			return true
		}
	}
	return false
}

// State returns the state that reproduces this walk without hints: every
// answer, with those not given by the person marked inferred. The web UI
// puts it in the URL after a paste or a probe answered questions.
func (w *Walk) State() State {
	s := State{Tree: w.Tree.ID}
	for _, st := range w.Steps {
		s.Answers = append(s.Answers, Given{Question: st.Node.ID, Choice: st.Choice.ID, Inferred: st.Source != SourcePerson})
	}
	return s
}
