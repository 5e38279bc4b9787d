package mcp

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/gaps"
)

// GapChecker runs the library's gap checks against the configured cluster,
// read-only; *gaps.Service is one. The tool applies the access policy and
// the limiter before calling it.
type GapChecker interface {
	Run(ctx context.Context) (*gaps.Report, error)
}

// GapsInput filters what check_cluster_gaps returns.
type GapsInput struct {
	MinSeverity   string `json:"min_severity,omitempty" jsonschema:"only checks of this severity or worse: critical, high, medium or low (default low)"`
	IncludePassed bool   `json:"include_passed,omitempty" jsonschema:"also list the checks that passed"`
	Lang          string `json:"lang,omitempty"`
}

// GapsOutput is the report: findings and errors worst first.
type GapsOutput struct {
	CollectedAt string        `json:"collected_at"`
	Found       int           `json:"found"`
	Errors      int           `json:"errors" jsonschema:"checks that could not tell (a read they need failed); never treat them as passed"`
	Passed      int           `json:"passed"`
	Results     []GapsFinding `json:"results"`
	Lang        string        `json:"lang" jsonschema:"echoes the request; every finding carries title, message and fix in English and, where the check has them, title_ko, message_ko and fix_ko"`
}

// GapsFinding is one check's result with links to what motivates it.
type GapsFinding struct {
	ID           string         `json:"id"`
	Title        string         `json:"title"`
	Severity     string         `json:"severity" jsonschema:"critical, high, medium or low"`
	Status       string         `json:"status" jsonschema:"found, passed, or error (the check could not tell)"`
	Message      string         `json:"message,omitempty"`
	Count        int            `json:"count,omitempty"`
	Objects      []gaps.Finding `json:"objects,omitempty"`
	Error        string         `json:"error,omitempty"`
	Fix          string         `json:"fix"`
	TitleKo      string         `json:"title_ko,omitempty"`
	MessageKo    string         `json:"message_ko,omitempty"`
	FixKo        string         `json:"fix_ko,omitempty"`
	Incidents    []string       `json:"incidents"`
	IncidentURLs []string       `json:"incident_urls"`
	PlaybookURLs []string       `json:"playbook_urls,omitempty"`
	PageURL      string         `json:"page_url"`
}

var gapsTool = toolSpec[GapsInput]{
	name:      "check_cluster_gaps",
	title:     "Check the cluster for known incident conditions",
	openWorld: true,
	live:      true,
	cost:      1,
	description: "Use when the user asks whether an incident from the library could happen in their cluster, or for a " +
		"pre-upgrade or hygiene review. Reads the connected cluster read-only (nodes, webhooks, workloads, pods, quotas, " +
		"Karpenter pools) and runs every gap check: single control-plane node, GPU nodes without allocatable GPUs, " +
		"webhooks with failurePolicy Fail on kube-system, expiring webhook CAs, CoreDNS with one replica, and more. Each " +
		"finding names the objects, the fix, and the incidents and playbooks behind it. Results may be cached for a minute.",
	tweak: func(props map[string]*jsonschema.Schema) {
		enum(props, "min_severity", "critical", "high", "medium", "low")
	},
}

func (t *tools) gaps(ctx context.Context, _ *content.Content, _ *sdk.CallToolRequest, in GapsInput) (GapsOutput, error) {
	lang, err := toolLang(in.Lang)
	if err != nil {
		return GapsOutput{}, err
	}
	floor := gaps.Low
	if in.MinSeverity != "" {
		s, err := gaps.ParseSeverity(in.MinSeverity)
		if err != nil {
			return GapsOutput{}, badArg("%v", err)
		}
		floor = s
	}
	rep, err := t.opts.Gaps.Run(ctx)
	if err != nil {
		return GapsOutput{}, err
	}
	out := GapsOutput{CollectedAt: rep.CollectedAt.Format("2006-01-02T15:04:05Z07:00"), Results: []GapsFinding{}, Lang: string(lang)}
	out.Found, out.Passed, out.Errors = rep.Counts()
	for _, r := range rep.Results {
		if r.Severity < floor || (r.Status == gaps.StatusPassed && !in.IncludePassed) {
			continue
		}
		f := GapsFinding{ID: r.ID, Title: r.Title, Severity: r.Severity.String(), Status: string(r.Status), Message: r.Message,
			Count: r.Count, Objects: r.Objects, Error: r.Error, Fix: r.Fix, Incidents: r.Incidents, PageURL: "/gaps#" + r.ID,
			TitleKo: r.TitleKo, MessageKo: r.MessageKo, FixKo: r.FixKo}
		for _, id := range r.Incidents {
			f.IncidentURLs = append(f.IncidentURLs, gaps.IncidentURL("", id))
		}
		for _, pb := range r.Playbooks {
			f.PlaybookURLs = append(f.PlaybookURLs, gaps.PlaybookURL("", pb))
		}
		out.Results = append(out.Results, f)
	}
	return out, nil
}
