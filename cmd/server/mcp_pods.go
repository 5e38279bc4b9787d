package main

import (
	"context"
	"errors"
	"fmt"

	"casebook/internal/cluster"
	"casebook/internal/mcp"
	"casebook/internal/probe"
	"casebook/internal/snapshot"
)

// collector reads one triage target from a cluster; *cluster.Reader is one,
// and tests pass snapshots from files.
type collector interface {
	Collect(ctx context.Context, namespace, target string) (*snapshot.Snapshot, error)
}

// livePods is the MCP tool triage_pod over a cluster reader: it collects
// the pod read-only (the reader applies the namespace allow-list) and walks
// the current library's triage trees with what it found, as "casebook
// triage" does on the command line.
type livePods struct {
	cluster collector
	src     mcp.Source
	// gate, when set, decides per call who may read the cluster (the
	// portal's allow-list and rate limit); stdio has none, as its user
	// runs it with their own kubeconfig.
	gate func(req mcp.PodRequest) error
}

func (p livePods) TriagePod(ctx context.Context, req mcp.PodRequest) (*mcp.PodResult, error) {
	if p.gate != nil {
		if err := p.gate(req); err != nil {
			return nil, err
		}
	}
	c := p.src.Current()
	if c == nil || c.Triage == nil || c.Triage.Root() == nil {
		return nil, errors.New("the triage trees are not loaded; see /api/problems")
	}
	snap, err := p.cluster.Collect(ctx, req.Namespace, req.Pod)
	switch {
	case errors.Is(err, cluster.ErrNamespaceNotAllowed):
		return nil, fmt.Errorf("namespace %s is not open to live triage on this server", req.Namespace)
	case errors.Is(err, cluster.ErrNotFound):
		return nil, fmt.Errorf("no pod %s in namespace %s", req.Pod, req.Namespace)
	case err != nil:
		return nil, fmt.Errorf("reading the cluster failed: %w", err)
	}
	rep, err := probe.Triage(c.Triage, snap)
	if err != nil {
		return nil, err
	}
	return podResult(rep), nil
}

// podResult flattens a report for the tool: evidence as one line each.
func podResult(rep *probe.Report) *mcp.PodResult {
	out := &mcp.PodResult{Route: rep.Route, Playbook: rep.Playbook, Section: rep.Section, Diagnosis: rep.Diagnosis, Steps: []mcp.PodStep{}}
	for _, st := range rep.Steps {
		step := mcp.PodStep{Question: st.Text, Answer: st.Label, Note: st.Note}
		for _, e := range st.Evidence {
			step.Evidence = append(step.Evidence, e.String())
		}
		out.Steps = append(out.Steps, step)
	}
	if a := rep.Ask; a != nil {
		out.Ask = &mcp.PodAsk{Question: a.Text, Command: a.Command, Why: a.Why, Choices: a.Choices}
	}
	for _, e := range rep.ReadErrors {
		out.ReadErrors = append(out.ReadErrors, fmt.Sprintf("could not %s (%s); needs %s", e.What, e.Kind, e.Permission))
	}
	return out
}
