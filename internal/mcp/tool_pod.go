package mcp

import (
	"context"
	"net/http"
	"regexp"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
)

// PodTriager runs the triage wizard against a live pod, read-only: the hook
// the cluster reader fills when live triage is configured. Implementations
// apply the same namespace allow-list and per-user rule as the web page and
// return an error worded for the user when they refuse; that error is shown
// to the assistant as it is.
type PodTriager interface {
	TriagePod(ctx context.Context, req PodRequest) (*PodResult, error)
}

// PodRequest is one pod to triage.
type PodRequest struct {
	Namespace string
	Pod       string
	// Header is the HTTP request's header when the call came over /mcp,
	// nil over stdio, so the implementation can read the identity header
	// the portal trusts (--auth-header) and apply its allow-list.
	Header http.Header
}

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
	Pod       string `json:"pod" jsonschema:"the pod's name, or deployment|replicaset|statefulset|job/NAME when no pod exists (a quota refused it)"`
}

// PodOutput is the result with the playbook link.
type PodOutput struct {
	PodResult
	URL string `json:"url,omitempty"`
}

var podTool = toolSpec[PodInput]{
	name:      "triage_pod",
	title:     "Triage a live pod",
	openWorld: true,
	description: "Use when the user names a pod that is Pending, crash-looping, not ready or missing its GPU, in a cluster this " +
		"Casebook is connected to. Reads the pod, its events, nodes, quotas and GPU stack (read-only, within the allowed " +
		"namespaces) and walks the triage tree: returns the route, the playbook section, a diagnosis and the evidence. " +
		"For text the user pasted, use classify_error instead.",
}

// Kubernetes names: a namespace is a DNS label, a pod a DNS subdomain.
var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)
)

func (t *tools) pod(ctx context.Context, _ *content.Content, req *sdk.CallToolRequest, in PodInput) (PodOutput, error) {
	if !dnsLabel.MatchString(in.Namespace) {
		return PodOutput{}, badArg("namespace %q is not a Kubernetes namespace name", in.Namespace)
	}
	if !validTarget(in.Pod) {
		return PodOutput{}, badArg("pod %q is not a pod name or deployment|replicaset|statefulset|job/NAME", in.Pod)
	}
	var header http.Header
	if req != nil && req.Extra != nil {
		header = req.Extra.Header
	}
	res, err := t.opts.Pods.TriagePod(ctx, PodRequest{Namespace: in.Namespace, Pod: in.Pod, Header: header})
	if err != nil {
		return PodOutput{}, &argError{err.Error()}
	}
	out := PodOutput{PodResult: *res}
	if out.Steps == nil {
		out.Steps = []PodStep{}
	}
	if res.Playbook != "" {
		out.URL = "/playbooks/" + res.Playbook
		if res.Section != "" {
			out.URL += "#" + res.Section
		}
	}
	if t.opts.Metrics != nil && res.Route != "" {
		t.opts.Metrics.TriageOutcome(res.Route, "mcp-live")
	}
	return out, nil
}

// validTarget accepts what the cluster reader collects: a pod name, or a
// workload kind and name.
func validTarget(t string) bool {
	if kind, name, ok := strings.Cut(t, "/"); ok {
		switch strings.ToLower(kind) {
		case "pod", "deployment", "replicaset", "statefulset", "job":
			return dnsSubdomain.MatchString(name)
		}
		return false
	}
	return dnsSubdomain.MatchString(t)
}
