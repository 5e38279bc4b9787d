package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/probe"
)

// PodResult is where the walk over the cluster's evidence ended: a route
// with its playbook section, or the question the cluster could not answer.
type PodResult struct {
	Route      string    `json:"route" jsonschema:"the route reached, e.g. pending/insufficient-resources; empty when the walk stopped at a question"`
	Playbook   string    `json:"playbook,omitempty"`
	Section    string    `json:"section,omitempty"`
	Diagnosis  string    `json:"diagnosis,omitempty"`
	Steps      []PodStep `json:"steps" jsonschema:"the questions the cluster answered, in order, with the evidence it read"`
	Ask        *PodAsk   `json:"ask,omitempty" jsonschema:"the question the walk stopped at because the cluster could not answer it; ask the user"`
	ReadErrors []string  `json:"read_errors,omitempty" jsonschema:"reads that failed, with the permission each needed"`
}

// PodStep is one question answered from the cluster.
type PodStep struct {
	Question string   `json:"question"`
	Answer   string   `json:"answer"`
	Note     string   `json:"note,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
}

// PodAsk is a question left for the person, with the command that shows
// the answer.
type PodAsk struct {
	Question string   `json:"question"`
	Command  string   `json:"command,omitempty"`
	Why      string   `json:"why,omitempty" jsonschema:"why the cluster could not answer it"`
	Choices  []string `json:"choices"`
}

// PodInput names a pod, or a workload whose pods were never created.
type PodInput struct {
	Namespace string `json:"namespace" jsonschema:"the pod's namespace"`
	Pod       string `json:"pod" jsonschema:"the pod's name, or deployment|replicaset|statefulset|job|cronjob|service|ingress|hpa|pvc/NAME for a workload (also when no pod exists), a Service, an Ingress, a HorizontalPodAutoscaler or a PersistentVolumeClaim"`
}

// PodOutput is the result with the playbook link.
type PodOutput struct {
	PodResult
	URL string `json:"url,omitempty"`
}

var podTool = toolSpec[PodInput]{
	name:      "triage_pod",
	title:     "Triage a live pod",
	openWorld: true, // the live service applies the policy and the limiter
	description: "Use when the user names a pod that is Pending, crash-looping, not ready or missing its GPU, in a cluster this " +
		"Casebook is connected to. Reads the pod, its events, nodes, quotas and GPU stack (read-only, within the allowed " +
		"namespaces) and walks the triage tree: returns the route, the playbook section, a diagnosis and the evidence. " +
		"For text the user pasted, use classify_error instead.",
}

func (t *tools) pod(ctx context.Context, c *content.Content, req *sdk.CallToolRequest, in PodInput) (PodOutput, error) {
	if c.Triage == nil || c.Triage.Root() == nil {
		return PodOutput{}, badArg("the triage trees did not load on this server; its problems are listed at /api/problems")
	}
	rep, err := t.opts.Live.Triage(ctx, t.caller(req), c.Triage, in.Namespace, in.Pod)
	if err != nil {
		return PodOutput{}, err
	}
	out := PodOutput{PodResult: podResult(rep)}
	if rep.Playbook != "" {
		out.URL = "/playbooks/" + rep.Playbook
		if rep.Section != "" {
			out.URL += "#" + rep.Section
		}
	}
	if t.opts.Metrics != nil && rep.Route != "" {
		t.opts.Metrics.TriageOutcome(rep.Route, "mcp-live")
	}
	return out, nil
}

// podResult flattens a report for the tool: evidence as one line each.
func podResult(rep *probe.Report) PodResult {
	out := PodResult{Route: rep.Route, Playbook: rep.Playbook, Section: rep.Section, Diagnosis: rep.Diagnosis, Steps: []PodStep{}}
	for _, st := range rep.Steps {
		step := PodStep{Question: st.Text, Answer: st.Label, Note: st.Note}
		for _, e := range st.Evidence {
			step.Evidence = append(step.Evidence, e.String())
		}
		out.Steps = append(out.Steps, step)
	}
	if a := rep.Ask; a != nil {
		out.Ask = &PodAsk{Question: a.Text, Command: a.Command, Why: a.Why, Choices: a.Choices}
	}
	for _, e := range rep.ReadErrors {
		out.ReadErrors = append(out.ReadErrors, fmt.Sprintf("could not %s (%s); needs %s", e.What, e.Kind, e.Permission))
	}
	return out
}
