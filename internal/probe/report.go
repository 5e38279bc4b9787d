package probe

import (
	"fmt"

	"casebook/internal/snapshot"
	"casebook/internal/triage"
)

// Report is the outcome of walking the triage trees over one snapshot: the
// route (when the evidence reached one), every question answered on the
// way with its evidence, the question a person still has to answer
// otherwise, and what could not be read. The CLI prints it; --json and the
// web UI use the same shape.
type Report struct {
	Target     snapshot.Target      `json:"target"`
	Route      string               `json:"route,omitempty"`
	Playbook   string               `json:"playbook,omitempty"`
	Section    string               `json:"section,omitempty"`
	Diagnosis  string               `json:"diagnosis,omitempty"`
	Steps      []ReportStep         `json:"steps"`
	Ask        *ReportAsk           `json:"ask,omitempty"`
	State      string               `json:"state"` // triage.State answers, for the wizard's URL
	Tree       string               `json:"tree"`
	ReadErrors []snapshot.ReadError `json:"readErrors,omitempty"`
	// Specifics are the particulars of the route reached (the taint to
	// tolerate, the label values nodes have, the resource short by how
	// much on which nodes); absent for other routes.
	Specifics *triage.Specifics `json:"specifics,omitempty"`
}

// ReportStep is one answered question.
type ReportStep struct {
	Question string     `json:"question"`
	Text     string     `json:"text"`
	Answer   string     `json:"answer"`
	Label    string     `json:"label"`
	Probe    string     `json:"probe,omitempty"`
	Note     string     `json:"note,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

// ReportAsk is the question the walk stopped at, with why the cluster
// could not answer it.
type ReportAsk struct {
	Question string `json:"question"`
	Text     string `json:"text"`
	Command  string `json:"command,omitempty"`
	Probe    string `json:"probe,omitempty"`
	Why      string `json:"why,omitempty"`
	// Evidence is what the probe saw although it could not decide.
	Evidence []Evidence `json:"evidence,omitempty"`
	Choices  []string   `json:"choices"`
}

// Triage walks the catalogue from its root chooser with the snapshot
// answering every question it can.
func Triage(cat *triage.Catalog, s *snapshot.Snapshot) (*Report, error) {
	root := cat.Root()
	if root == nil {
		return nil, fmt.Errorf("snapshot: the triage library has no root tree")
	}
	p := NewProber(s, cat)
	w, err := cat.Walk(triage.State{Tree: root.ID}, triage.Hints{Cluster: p})
	if err != nil {
		return nil, err
	}
	rep := &Report{Target: s.Target, Tree: root.ID, State: w.State().Encode(), ReadErrors: s.ReadErrors, Steps: []ReportStep{}}
	for _, st := range w.Steps {
		r := p.Results[st.Node.Probe]
		rep.Steps = append(rep.Steps, ReportStep{
			Question: st.Node.ID, Text: st.Node.Question, Answer: st.Choice.ID, Label: st.Choice.Label,
			Probe: st.Node.Probe, Note: r.Note, Evidence: r.Evidence,
		})
	}
	if n := w.Node; n.IsOutcome() {
		rep.Route, rep.Playbook, rep.Section, rep.Diagnosis = n.Outcome.Route, n.Outcome.Playbook, n.Outcome.Section, n.Outcome.Diagnosis
		if sp := Specifics(s).For(rep.Route); !sp.Empty() {
			rep.Specifics = &sp
		}
	} else {
		ask := &ReportAsk{Question: n.ID, Text: n.Question, Command: n.Command, Probe: n.Probe}
		if n.Probe != "" {
			p.Probe(n.Probe)
			res := p.Results[n.Probe]
			ask.Why, ask.Evidence = res.Note, res.Evidence
		}
		for _, ch := range n.Choices {
			ask.Choices = append(ask.Choices, ch.ID+": "+ch.Label)
		}
		rep.Ask = ask
	}
	return rep, nil
}
