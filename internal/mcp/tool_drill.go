package mcp

import (
	"context"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/drill"
	"casebook/internal/drilltext"
	"casebook/internal/i18n"
	"casebook/internal/kubectl"
)

// Drills gives the tools the current library's drills; *drill.Service
// implements it.
type Drills interface {
	Set() (*drill.Set, error)
}

// DrillsInput filters list_drills.
type DrillsInput struct {
	Family string `json:"family,omitempty" jsonschema:"only drills of this route family: scheduling, gpu, memory, cpu, llm, pods, nodes, network, control-plane"`
	Lang   string `json:"lang,omitempty" jsonschema:"en (default) or ko"`
}

// DrillsOutput lists drills.
type DrillsOutput struct {
	Drills []DrillSummary `json:"drills"`
}

// DrillSummary is one drill in the list; the route is left out so that
// listing does not give the answer away.
type DrillSummary struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Family     string   `json:"family"`
	Difficulty string   `json:"difficulty"`
	Decoy      bool     `json:"has_decoy"`
	Incidents  []string `json:"incidents"`
	URL        string   `json:"url"`
}

var drillsTool = toolSpec[DrillsInput]{
	name:  "list_drills",
	title: "List triage drills",
	description: "Use when the user wants to practise triage or run a game day or tabletop exercise. Lists the drills: " +
		"recorded broken clusters (staged on a test control plane and read with the live reader) with a starting symptom, " +
		"each modelled on incidents of the library. Then call get_drill_brief with an id.",
	tweak: func(props map[string]*jsonschema.Schema) {
		enum(props, "family", "scheduling", "gpu", "memory", "cpu", "llm", "pods", "nodes", "network", "control-plane")
		enum(props, "lang", "en", "ko")
	},
}

// DrillBriefInput names a drill and, optionally, commands to run on its
// recording.
type DrillBriefInput struct {
	ID       string   `json:"id" jsonschema:"drill id from list_drills"`
	Commands []string `json:"commands,omitempty" jsonschema:"read-only kubectl commands to run on the recording, e.g. kubectl describe pod NAME; their output comes back as kubectl prints it"`
	Lang     string   `json:"lang,omitempty" jsonschema:"en (default) or ko"`
}

// DrillBriefOutput is a facilitator's brief: the scenario to read out, the
// hints to give in order, and (for the facilitator only) the expected
// route, evidence, decoy and recovery direction.
type DrillBriefOutput struct {
	ID          string           `json:"id"`
	Title       string           `json:"title"`
	Family      string           `json:"family"`
	Difficulty  string           `json:"difficulty"`
	TargetTime  string           `json:"target_time"`
	Namespace   string           `json:"namespace" jsonschema:"the namespace of the kubectl context during the drill"`
	Start       DrillStart       `json:"start"`
	Hints       []string         `json:"hints" jsonschema:"give one at a time, only when the participant is stuck"`
	Facilitator DrillFacilitator `json:"facilitator" jsonschema:"do not reveal before the participant answers"`
	Outputs     []DrillCmdOutput `json:"outputs,omitempty"`
	Incidents   []Ref            `json:"incidents"`
	URL         string           `json:"url"`
	BriefURL    string           `json:"brief_url"`
}

// DrillStart is the starting symptom.
type DrillStart struct {
	Kind string `json:"kind" jsonschema:"alert, message or ticket"`
	From string `json:"from"`
	Text string `json:"text"`
}

// DrillFacilitator is what the facilitator keeps to themselves.
type DrillFacilitator struct {
	Route     string             `json:"route"`
	Playbook  string             `json:"playbook_url,omitempty"`
	Evidence  []DrillEvidenceRef `json:"evidence"`
	Decoy     *DrillDecoyRef     `json:"decoy,omitempty"`
	Recovery  string             `json:"recovery"`
	Teaches   string             `json:"teaches"`
	LiveRoute string             `json:"live_triage_route" jsonschema:"what Casebook's live triage makes of the recording"`
}

// DrillEvidenceRef is a line to find and the command that shows it.
type DrillEvidenceRef struct {
	Command string `json:"command"`
	Line    string `json:"line"`
	Why     string `json:"why,omitempty"`
}

// DrillDecoyRef is the plausible cause that does not act.
type DrillDecoyRef struct {
	Route    string             `json:"route"`
	Why      string             `json:"why"`
	Evidence []DrillEvidenceRef `json:"evidence"`
}

// DrillCmdOutput is one command run on the recording.
type DrillCmdOutput struct {
	Command string `json:"command"`
	Output  string `json:"output,omitempty"`
	Error   string `json:"error,omitempty" jsonschema:"why the recording cannot run it (it writes, or it needs what a recording does not keep)"`
}

var drillBriefTool = toolSpec[DrillBriefInput]{
	name:  "get_drill_brief",
	title: "Get a drill's facilitator brief",
	description: "Use to run a triage drill as a tabletop exercise. Returns the starting symptom to read to the participant, " +
		"hints to give one at a time, and the facilitator's key (expected route, the evidence lines and the commands that " +
		"show them, the decoy, the recovery direction): keep the key to yourself until the participant answers. Pass " +
		"commands (read-only kubectl, as the participant types them) to get their output from the recording, exactly as " +
		"kubectl prints it; commands that write are refused. The participant can also play at the returned url.",
	tweak: func(props map[string]*jsonschema.Schema) {
		enum(props, "lang", "en", "ko")
		if p := props["commands"]; p != nil {
			maxItems := 20
			p.MaxItems = &maxItems
		}
	},
}

func (t *tools) drillSet() (*drill.Set, error) {
	if t.opts.Drills == nil {
		return nil, errors.New("drills are not available on this server")
	}
	return t.opts.Drills.Set()
}

func drillPrinter(lang string) (*i18n.Printer, string, error) {
	switch lang {
	case "", "en":
		return i18n.Messages().Printer(i18n.EN), "en", nil
	case "ko":
		return i18n.Messages().Printer(i18n.KO), "ko", nil
	}
	return nil, "", badArg("lang %q: use en or ko", lang)
}

func (t *tools) listDrills(_ context.Context, _ *content.Content, _ *sdk.CallToolRequest, in DrillsInput) (DrillsOutput, error) {
	pr, lang, err := drillPrinter(in.Lang)
	if err != nil {
		return DrillsOutput{}, err
	}
	set, err := t.drillSet()
	if err != nil {
		return DrillsOutput{}, err
	}
	out := DrillsOutput{Drills: []DrillSummary{}}
	for _, d := range set.Drills {
		if in.Family != "" && d.Family().ID != in.Family {
			continue
		}
		out.Drills = append(out.Drills, DrillSummary{ID: d.ID, Title: d.Title.In(lang), Family: d.Family().ID,
			Difficulty: drilltext.Difficulty(pr, d.Difficulty), Decoy: d.Decoy != nil, Incidents: d.Incidents, URL: "/drills/" + d.ID})
	}
	return out, nil
}

func (t *tools) drillBrief(ctx context.Context, c *content.Content, _ *sdk.CallToolRequest, in DrillBriefInput) (DrillBriefOutput, error) {
	pr, lang, err := drillPrinter(in.Lang)
	if err != nil {
		return DrillBriefOutput{}, err
	}
	if len(in.Commands) > 20 {
		return DrillBriefOutput{}, badArg("at most 20 commands per call, got %d", len(in.Commands))
	}
	set, err := t.drillSet()
	if err != nil {
		return DrillBriefOutput{}, err
	}
	d, ok := set.Drill(in.ID)
	if !ok {
		return DrillBriefOutput{}, badArg("no drill %q; list_drills lists them", in.ID)
	}
	out := DrillBriefOutput{ID: d.ID, Title: d.Title.In(lang), Family: d.Family().ID, Difficulty: drilltext.Difficulty(pr, d.Difficulty),
		TargetTime: d.Difficulty.Target().String(), Namespace: d.Snapshot.Target.Namespace,
		Start: DrillStart{Kind: d.Start.Kind, From: d.Start.From, Text: d.Start.Text.In(lang)},
		URL:   "/drills/" + d.ID, BriefURL: "/drills/" + d.ID + "/brief", Hints: []string{}, Incidents: []Ref{}}
	for _, h := range d.Hints {
		out.Hints = append(out.Hints, h.In(lang))
	}
	f := &out.Facilitator
	f.Route, f.Recovery, f.Teaches = d.Route, d.Recovery.In(lang), d.Teaches.In(lang)
	for _, e := range d.Evidence {
		f.Evidence = append(f.Evidence, DrillEvidenceRef{Command: kubectlText(e.Command), Line: e.Line, Why: e.Why.In(lang)})
	}
	if dc := d.Decoy; dc != nil {
		f.Decoy = &DrillDecoyRef{Route: dc.Route, Why: dc.Text.In(lang)}
		for _, e := range dc.Evidence {
			f.Decoy.Evidence = append(f.Decoy.Evidence, DrillEvidenceRef{Command: kubectlText(e.Command), Line: e.Line})
		}
	}
	if c.Triage != nil {
		if o, ok := d.Outcome(c.Triage); ok {
			f.Playbook = "/playbooks/" + o.Playbook + "#" + o.Section
		}
		route, stopped, _ := d.ProbedRoute(c.Triage)
		f.LiveRoute = route
		if route == "" {
			f.LiveRoute = "stops at " + stopped
		}
	}
	for _, id := range d.Incidents {
		ref := Ref{ID: id, URL: "/incidents/" + id}
		if in, err := c.Store.Incident(ctx, id); err == nil {
			ref.Title, ref.Date = pr.PickText(in.Title, in.TitleKo), in.Date
		}
		out.Incidents = append(out.Incidents, ref)
	}
	for _, line := range in.Commands {
		st, err := d.Run(line)
		if err != nil {
			var ke *kubectl.Error
			if !errors.As(err, &ke) && !errors.Is(err, drill.ErrAttempt) {
				return DrillBriefOutput{}, err
			}
			out.Outputs = append(out.Outputs, DrillCmdOutput{Command: line, Error: err.Error()})
			continue
		}
		out.Outputs = append(out.Outputs, DrillCmdOutput{Command: st.Command, Output: st.Output})
	}
	return out, nil
}

func kubectlText(c string) string {
	if len(c) > 8 && c[:8] == "kubectl " {
		return c
	}
	return "kubectl " + c
}
