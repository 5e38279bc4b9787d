package triage

import (
	"errors"
	"slices"
	"testing"
)

// treePath is one way through a tree: the answers given and where they end.
type treePath struct {
	answers []Given
	end     string
}

// allPaths enumerates every way from a node to an outcome.
func allPaths(c *Catalog, id string, prefix []Given) []treePath {
	n, ok := c.Node(id)
	if !ok {
		return nil
	}
	if n.IsOutcome() {
		return []treePath{{answers: slices.Clone(prefix), end: n.ID}}
	}
	var out []treePath
	for _, ch := range n.Choices {
		out = append(out, allPaths(c, ch.Next, append(prefix, Given{Question: n.ID, Choice: ch.ID}))...)
	}
	return out
}

// TestWalkEveryPath replays every path of every tree as a URL state would
// carry it, and checks the walk ends at the outcome with the breadcrumbs in
// order, and that Back steps to the last question.
func TestWalkEveryPath(t *testing.T) {
	c := loadReal(t)
	reached := map[string]bool{}
	total := 0
	for _, tree := range c.Trees {
		for _, p := range allPaths(c, tree.Start, nil) {
			total++
			s := State{Tree: tree.ID, Answers: p.answers}
			name := tree.ID + "?" + s.Encode()
			parsed, err := ParseState(tree.ID, s.Encode())
			if err != nil {
				t.Fatalf("%s: ParseState: %v", name, err)
			}
			w, err := c.Walk(parsed, Hints{})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if w.Node.ID != p.end || !w.Node.IsOutcome() {
				t.Errorf("%s: ended at %s, want outcome %s", name, w.Node.ID, p.end)
			}
			if len(w.Steps) != len(p.answers) {
				t.Errorf("%s: %d breadcrumbs, want %d", name, len(w.Steps), len(p.answers))
			}
			for i, st := range w.Steps {
				if i < len(p.answers) && (st.Node.ID != p.answers[i].Question || st.Choice.ID != p.answers[i].Choice || st.Source != SourcePerson) {
					t.Errorf("%s: breadcrumb %d is %s=%s (%s)", name, i, st.Node.ID, st.Choice.ID, st.Source)
				}
			}
			back, err := c.Walk(s.Back(), Hints{})
			if err != nil {
				t.Errorf("%s: back: %v", name, err)
			} else if last := p.answers[len(p.answers)-1]; back.Node.ID != last.Question {
				t.Errorf("%s: back lands on %s, want %s", name, back.Node.ID, last.Question)
			}
			if tree.Root {
				reached[w.Node.Outcome.Route] = true
			}
		}
	}
	t.Logf("walked %d paths", total)
	for _, r := range Routes {
		if !reached[r] {
			t.Errorf("route %s: no path from the root tree ends there", r)
		}
	}
}

func TestWalkErrors(t *testing.T) {
	c := loadReal(t)
	tests := []struct {
		name, tree, answers string
	}{
		{"unknown tree", "nope", ""},
		{"unknown answer", "root", "symptom=sideways"},
		{"answer off the path", "root", "symptom=pending,slow-throttled=yes"},
		{"question answered twice", "root", "symptom=pending,symptom=slow"},
		{"answer to an outcome", "pending", "pending-reason=taint,out-pending-taint=yes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseState(tt.tree, tt.answers)
			if err == nil {
				_, err = c.Walk(s, Hints{})
			}
			var se *StateError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *StateError", err)
			}
		})
	}
}

func TestParseState(t *testing.T) {
	tests := []struct {
		in      string
		want    []Given
		wantErr bool
	}{
		{"", nil, false},
		{"symptom=pending", []Given{{"symptom", "pending", false}}, false},
		{"symptom~pending,pending-reason=taint", []Given{{"symptom", "pending", true}, {"pending-reason", "taint", false}}, false},
		{"symptom", nil, true},
		{"symptom=", nil, true},
		{"Symptom=pending", nil, true},
		{"a=b,,c=d", nil, true},
		{"a=b;c=d", nil, true},
	}
	for _, tt := range tests {
		s, err := ParseState("root", tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseState(%q) err = %v", tt.in, err)
			continue
		}
		if err == nil && (!slices.Equal(s.Answers, tt.want) || s.Encode() != tt.in) {
			t.Errorf("ParseState(%q) = %+v, encodes to %q", tt.in, s.Answers, s.Encode())
		}
	}
}

func TestStateWithAndBack(t *testing.T) {
	s := State{Tree: "root"}.With("symptom", "pending").With("pending-reason", "taint")
	if got := s.Encode(); got != "symptom=pending,pending-reason=taint" {
		t.Errorf("With: %q", got)
	}
	s = State{Tree: "root", Answers: []Given{{"symptom", "pending", true}}}.With("symptom", "restarts")
	if got := s.Encode(); got != "symptom=restarts" {
		t.Errorf("With replaces an inferred answer: %q", got)
	}
	if got := s.Back().Back().Encode(); got != "" {
		t.Errorf("Back past the start: %q", got)
	}
}

// fakeProber answers from a fixed table, as a cluster snapshot would.
type fakeProber map[string]Answer

func (f fakeProber) Probe(name string) Answer { return f[name] }

func TestWalkHints(t *testing.T) {
	c := loadReal(t)
	cluster := fakeProber{
		"pod-symptom":       {Value: "pending", Known: true, Note: "phase Pending, PodScheduled=False"},
		"scheduler-message": {Value: "taint", Known: true, Evidence: []Evidence{{Signal: "sched-taint-keyed", Text: "0/3 nodes are available: 3 node(s) had untolerated taint {gpu: true}."}}},
		"gpu-driver":        {Known: false},
	}
	t.Run("probes answer and are marked", func(t *testing.T) {
		w, err := c.Walk(State{Tree: "root"}, Hints{Cluster: cluster})
		if err != nil {
			t.Fatal(err)
		}
		if w.Node.ID != "out-pending-taint" {
			t.Fatalf("ended at %s", w.Node.ID)
		}
		for _, st := range w.Steps {
			if st.Source != SourceProbe {
				t.Errorf("%s answered by %s, want probe", st.Node.ID, st.Source)
			}
		}
		if got := w.State().Encode(); got != "symptom~pending,pending-reason~taint" {
			t.Errorf("State() = %q", got)
		}
	})
	t.Run("the person overrides a probe", func(t *testing.T) {
		w, err := c.Walk(State{Tree: "root"}.With("symptom", "slow"), Hints{Cluster: cluster})
		if err != nil {
			t.Fatal(err)
		}
		if w.Node.ID != "slow-throttled" || w.Steps[0].Source != SourcePerson {
			t.Errorf("at %s, first step from %s", w.Node.ID, w.Steps[0].Source)
		}
	})
	t.Run("unknown probe answers stop the walk", func(t *testing.T) {
		w, err := c.Walk(State{Tree: "gpu-missing"}, Hints{Cluster: cluster})
		if err != nil {
			t.Fatal(err)
		}
		if w.Node.ID != "gpu-driver" || len(w.Steps) != 0 {
			t.Errorf("at %s after %d steps", w.Node.ID, len(w.Steps))
		}
	})
	t.Run("a paste lands on its route", func(t *testing.T) {
		res := c.Classify("Warning  FailedScheduling  default-scheduler  0/3 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}.")
		w, err := c.Walk(State{Tree: "root"}, Hints{Paste: res.Answers})
		if err != nil {
			t.Fatal(err)
		}
		if w.Node.ID != "out-pending-taint" {
			t.Fatalf("ended at %s", w.Node.ID)
		}
		for _, st := range w.Steps {
			if st.Source != SourcePaste || len(st.Evidence) == 0 {
				t.Errorf("%s: source %s with %d evidence lines", st.Node.ID, st.Source, len(st.Evidence))
			}
		}
	})
	t.Run("signal answers carry the walk into another tree", func(t *testing.T) {
		res := c.Classify("RuntimeError: Found no NVIDIA driver on your system.")
		w, err := c.Walk(State{Tree: "root"}, Hints{Paste: res.Answers})
		if err != nil {
			t.Fatal(err)
		}
		if w.Node.ID != "out-gpu-toolkit" {
			t.Errorf("ended at %s after %v", w.Node.ID, w.State().Encode())
		}
	})
}
