package mcp

import (
	"context"
	"net/http"
	"regexp"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/triage"
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

// PodResult is where the walk over the cluster's evidence ended.
type PodResult struct {
	Route      string            `json:"route" jsonschema:"the route reached, e.g. pending/insufficient-resources; empty when the cluster could not decide"`
	Playbook   string            `json:"playbook,omitempty"`
	Section    string            `json:"section,omitempty"`
	Diagnosis  string            `json:"diagnosis,omitempty"`
	Evidence   []triage.Evidence `json:"evidence" jsonschema:"what was read from the cluster that supports the route"`
	Steps      []string          `json:"steps,omitempty" jsonschema:"the questions the cluster answered, in order, with the answers"`
	Unanswered []string          `json:"unanswered,omitempty" jsonschema:"questions the cluster could not answer; ask the user"`
}

// PodInput names a pod.
type PodInput struct {
	Namespace string `json:"namespace" jsonschema:"the pod's namespace"`
	Pod       string `json:"pod" jsonschema:"the pod's name"`
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
	if !dnsSubdomain.MatchString(in.Pod) {
		return PodOutput{}, badArg("pod %q is not a Kubernetes pod name", in.Pod)
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
	if out.Evidence == nil {
		out.Evidence = []triage.Evidence{}
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
