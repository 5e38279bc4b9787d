package mcp

import (
	"context"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/answer"
	"casebook/internal/content"
	"casebook/internal/triage"
)

// ClassifyInput is the pasted text.
type ClassifyInput struct {
	Text string `json:"text" jsonschema:"the text exactly as pasted: kubectl describe or get events output, log lines, a stack trace, an alert; up to 1 MiB"`
	Lang string `json:"lang,omitempty"`
}

// ClassifyOutput lists the routes the text supports, best first.
type ClassifyOutput struct {
	Routes []Route `json:"routes" jsonschema:"candidate routes, best first; empty when nothing in the text is recognised"`
	// Match and Related are those of the web API's answer.
	Match   string           `json:"match" jsonschema:"confident (an exact message matched), weak (only closest guesses) or none"`
	Related []triage.Related `json:"related" jsonschema:"incidents and playbook sections a library search with the paste's most specific lines found"`
	Next    string           `json:"next" jsonschema:"what to do with this result"`
	Lang    string           `json:"lang" jsonschema:"the language of diagnosis, mitigation, verify and section_title"`
	// Redacted is answer.Answer's: secrets are taken out before anything
	// is read, so the evidence lines quote the redacted text.
	Redacted int `json:"redacted" jsonschema:"how many secrets (environment values, tokens, keys, passwords) were replaced by [redacted] before the text was read"`
}

// Route is one diagnosis: the triage route, the playbook section that
// handles it, how sure the classifier is, and the lines that support it.
type Route struct {
	Route        string            `json:"route" jsonschema:"stable route id, e.g. pending/insufficient-resources"`
	Confidence   float64           `json:"confidence" jsonschema:"0 to 1"`
	Playbook     string            `json:"playbook"`
	Section      string            `json:"section" jsonschema:"heading anchor in the playbook; pass it to get_playbook"`
	SectionTitle string            `json:"section_title,omitempty"`
	URL          string            `json:"url"`
	Diagnosis    string            `json:"diagnosis,omitempty"`
	Commands     []string          `json:"commands,omitempty" jsonschema:"read-only commands that confirm the diagnosis"`
	Mitigation   []string          `json:"mitigation,omitempty"`
	Verify       []string          `json:"verify,omitempty"`
	Evidence     []triage.Evidence `json:"evidence" jsonschema:"the lines of the text that support this route, with their line numbers"`
	EnglishOnly  bool              `json:"english_only,omitempty" jsonschema:"lang is ko but the library has no Korean text for this route yet"`
}

var classifyTool = toolSpec[ClassifyInput]{
	name:  "classify_error",
	title: "Classify a pasted error",
	cost:  1,
	description: "Use first when the user pastes an error, a Kubernetes event, kubectl describe/get output, log lines or an alert. " +
		"Runs the same classifier as Casebook's triage wizard and returns ranked routes, each with the playbook section " +
		"that handles it, a diagnosis, read-only commands to confirm it, and the exact lines of the paste that are the evidence. " +
		"Follow up with get_playbook(playbook, section). Pass the text unedited: scheduler messages and line numbers matter.",
	tweak: func(p map[string]*jsonschema.Schema) {
		p["text"].MinLength = ptr(1)
		p["text"].MaxLength = ptr(triage.MaxInput)
	},
}

func (t *tools) classify(ctx context.Context, c *content.Content, _ *sdk.CallToolRequest, in ClassifyInput) (ClassifyOutput, error) {
	lang, err := toolLang(in.Lang)
	if err != nil {
		return ClassifyOutput{}, err
	}
	pr := printerFor(lang)
	if strings.TrimSpace(in.Text) == "" {
		return ClassifyOutput{}, badArg("text is empty: paste the error, event, log lines or kubectl output")
	}
	if len(in.Text) > triage.MaxInput {
		return ClassifyOutput{}, badArg("text is %d bytes; the limit is 1 MiB: paste the part around the error", len(in.Text))
	}
	if c.Triage == nil || c.Triage.Root() == nil {
		return ClassifyOutput{}, badArg("the triage catalogue did not load on this server; its problems are listed at /api/problems")
	}
	var srch answer.Searcher
	if c.Search != nil {
		srch = c.Search
	}
	// A failed search leaves Related empty; the routes still answer.
	res, _ := answer.Paste(ctx, c.Triage, srch, in.Text, lang)
	out := ClassifyOutput{Routes: make([]Route, 0, len(res.Routes)), Match: res.Match, Related: res.Related, Lang: string(lang), Redacted: res.Redacted}
	for _, m := range res.Routes {
		r := Route{Route: m.Route, Confidence: m.Confidence, Playbook: m.Playbook, Section: m.Section,
			URL: "/playbooks/" + m.Playbook + "#" + m.Section, Evidence: m.Evidence}
		if n, ok := c.Triage.Route(m.Route); ok && n.Outcome != nil {
			var english bool
			r.Diagnosis, r.Mitigation, r.Verify, english = outcomeIn(pr, n.Outcome)
			r.Commands, r.EnglishOnly = n.Outcome.Commands, english
		}
		if pb, err := c.Store.Playbook(ctx, m.Playbook); err == nil {
			r.SectionTitle = headingIn(pr, pb, m.Section)
		}
		out.Routes = append(out.Routes, r)
	}
	if len(out.Routes) == 0 {
		out.Next = "Nothing in the text matched a known signal. Read the related incidents and playbooks listed (found by a " +
			"library search with the paste's own lines), ask for the pod's events (kubectl describe pod) or the " +
			"container's last log lines, or search_incidents with the error's key words."
		return out, nil
	}
	if t.opts.Metrics != nil {
		t.opts.Metrics.TriageOutcome(out.Routes[0].Route, "mcp")
	}
	if res.Match == triage.MatchWeak {
		out.Next = "Nothing matched with confidence: the routes are the closest guesses from weak evidence. Confirm with the " +
			"route's read-only commands or ask for kubectl describe output before relying on it; the related entries may hold the error."
		return out, nil
	}
	out.Next = "Read the top route's section with get_playbook(playbook, section) and run its read-only commands to confirm " +
		"before proposing any change. Routes below the first are alternatives the text also supports."
	return out, nil
}

func ptr[T any](v T) *T { return &v }
