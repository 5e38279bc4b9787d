package drill

import (
	"fmt"

	"casebook/internal/probe"
	"casebook/internal/triage"
)

// Walk runs live triage over the drill's recording: the probes answer every
// question the snapshot can, and the drill's Answers the questions a
// recording cannot (latency, metrics), exactly as the wizard's cluster mode
// would with a person answering those. The drills double as an accuracy
// test of live triage: the walk must end at the drill's route.
func (d *Drill) Walk(cat *triage.Catalog) (*triage.Walk, *probe.Prober, error) {
	root := cat.Root()
	if root == nil {
		return nil, nil, fmt.Errorf("drill: the triage library has no root tree")
	}
	if d.Snapshot == nil {
		return nil, nil, fmt.Errorf("drill %s: no recording", d.ID)
	}
	st := triage.State{Tree: root.ID}
	for _, a := range d.Answers {
		st.Answers = append(st.Answers, triage.Given{Question: a.Question, Choice: a.Choice})
	}
	p := probe.NewProber(d.Snapshot, cat)
	w, err := cat.Walk(st, triage.Hints{Cluster: p})
	if err != nil {
		return nil, nil, err
	}
	return w, p, nil
}

// Outcome is where the drill's route leads: the outcome node the walk over
// the recording reaches when it reaches the route, else the route's first
// outcome in the catalogue. ok is false when the route is unknown.
func (d *Drill) Outcome(cat *triage.Catalog) (*triage.Outcome, bool) {
	if w, _, err := d.Walk(cat); err == nil && w.Node.IsOutcome() && w.Node.Outcome.Route == d.Route {
		return w.Node.Outcome, true
	}
	n, ok := cat.Route(d.Route)
	if !ok {
		return nil, false
	}
	return n.Outcome, true
}

// ProbedRoute is the route live triage reaches over the recording, or ""
// with the question it stopped at.
func (d *Drill) ProbedRoute(cat *triage.Catalog) (route, stoppedAt string, err error) {
	w, _, err := d.Walk(cat)
	if err != nil {
		return "", "", err
	}
	if w.Node.IsOutcome() {
		return w.Node.Outcome.Route, "", nil
	}
	return "", w.Node.ID, nil
}
