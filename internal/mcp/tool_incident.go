package mcp

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"casebook/internal/content"
	"casebook/internal/export"
)

// IncidentInput names an incident.
type IncidentInput struct {
	ID   string `json:"id" jsonschema:"incident id such as IL-0021 (IL-21 and il-0021 work too)"`
	Lang string `json:"lang,omitempty"`
}

// IncidentOutput is the whole incident: classification, sources, the
// Markdown of every section, linked playbooks and the most similar
// incidents.
type IncidentOutput struct {
	export.Incident
	LinkedPlaybooks []Ref     `json:"linked_playbooks" jsonschema:"the playbooks the incident links to, for get_playbook"`
	Similar         []Similar `json:"similar" jsonschema:"other incidents sharing the most taxonomy terms with this one"`
	Lang            string    `json:"lang" jsonschema:"the language of the linked playbooks' and similar incidents' titles; the incident itself carries both"`
}

// Similar is an incident related by shared terms.
type Similar struct {
	Ref
	SharedTerms int `json:"shared_terms"`
	// Shared names the shared terms as facet:id, the most specific (the
	// rarest in the library) first.
	Shared []string `json:"shared" jsonschema:"shared taxonomy terms as facet:id, rarest first"`
}

const maxSimilar = 5

var incidentTool = toolSpec[IncidentInput]{
	name:  "get_incident",
	title: "Get an incident",
	description: "Use to read one incident in full once you have its id (from search_incidents or list_incidents): summary, " +
		"trigger, detection, every classification, public sources, the Markdown of its Symptom/Trigger/Detection/Response/" +
		"Follow-ups/Lessons sections, linked playbooks and similar incidents. Cite it by id and source URL.",
}

var incidentIDPattern = regexp.MustCompile(`^(IL|[A-Z][A-Z0-9]{1,9})-?(\d{1,4}|[1-9]\d{4,5})$`)

// incidentID accepts the ways people write an id and returns the canonical
// form: IL-0042 for the public library, ACME-0007 for a team's layer.
func incidentID(s string) (string, error) {
	m := incidentIDPattern.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(s)))
	if m == nil {
		return "", badArg("incident id %q: an id looks like IL-0021 (or a team layer's prefix, e.g. ACME-0007)", s)
	}
	n, _ := strconv.Atoi(m[2])
	return fmt.Sprintf("%s-%04d", m[1], n), nil
}

func (t *tools) incident(ctx context.Context, c *content.Content, _ *sdk.CallToolRequest, in IncidentInput) (IncidentOutput, error) {
	lang, err := toolLang(in.Lang)
	if err != nil {
		return IncidentOutput{}, err
	}
	pr := printerFor(lang)
	id, err := incidentID(in.ID)
	if err != nil {
		return IncidentOutput{}, err
	}
	inc, err := c.Store.Incident(ctx, id)
	if err != nil {
		return IncidentOutput{}, fmt.Errorf("no incident %s; search_incidents or list_incidents find ids: %w", id, err)
	}
	out := IncidentOutput{Incident: export.FromIncident(c.Taxonomy, inc), LinkedPlaybooks: []Ref{}, Similar: []Similar{}, Lang: string(lang)}
	for _, pid := range inc.Playbooks {
		if pb, err := c.Store.Playbook(ctx, pid); err == nil {
			out.LinkedPlaybooks = append(out.LinkedPlaybooks, Ref{ID: pb.ID, Title: playbookTitleIn(pr, pb), URL: "/playbooks/" + pb.ID})
		}
	}
	sims, err := c.Store.Similar(ctx, id, maxSimilar)
	if err != nil {
		return IncidentOutput{}, err
	}
	for _, s := range sims {
		sim := Similar{Ref: Ref{ID: s.ID, Title: pr.PickText(s.Title, s.TitleKo), Date: s.Date, URL: "/incidents/" + s.ID}, SharedTerms: len(s.Shared), Shared: []string{}}
		for _, sh := range s.Shared {
			sim.Shared = append(sim.Shared, string(sh.Facet)+":"+sh.ID)
		}
		out.Similar = append(out.Similar, sim)
	}
	return out, nil
}
