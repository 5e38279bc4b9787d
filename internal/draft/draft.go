// Package draft writes a new incident file for a layer of the library: the
// next free id of the layer, every required field, the six sections, and
// TODO wherever only a person can write (what happened, why, the source).
// The triage wizard's write-up and "casebook new incident" are two doors to
// it, so a draft from either passes lint apart from its TODOs.
package draft

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"casebook/internal/library"
	"casebook/internal/triage"
)

// Input is what a draft is written from; only Layer, ID and Today are
// required.
type Input struct {
	Layer library.LayerInfo
	ID    string
	Today time.Time
	// Title, when given, replaces the TODO title and names the file.
	Title string
	// Outcome is the triage outcome the incident showed, with the
	// playbook it links (for symptoms and components) and the wizard's
	// steps that led there, when the draft comes from the wizard.
	Outcome  *triage.Outcome
	Playbook *library.Playbook
	Steps    []triage.Step
	// Components and Symptoms are the terms to start from, usually those
	// most incidents of the route share (see Common); without them the
	// playbook's first symptom, and a TODO for the components.
	Components []string
	Symptoms   []string
	// Taxonomy keeps only the term ids it knows (a draft never carries an
	// id lint would refuse); nil keeps them all.
	Taxonomy *library.Taxonomy
}

// Placeholder is the id of a write-up drafted with no team layer loaded:
// the public library's next number would claim an id in a numbering that
// is not the team's. "casebook new incident --layer DIR" in the team's own
// layer gives the real one.
const Placeholder = "TEAM-XXXX"

// NextID is the layer's next free incident id: one above the highest
// number among ids (file names or ids of the layer), from 1.
func NextID(layer library.LayerInfo, ids []string) string {
	pat := regexp.MustCompile(`^` + regexp.QuoteMeta(layer.Prefix) + `-(\d{4,6})\b`)
	top := 0
	for _, id := range ids {
		if m := pat.FindStringSubmatch(path.Base(id)); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > top {
				top = n
			}
		}
	}
	return layer.IncidentID(top + 1)
}

// FileName is the draft's file name in the layer's incidents folder: the
// id, then a slug of the title (or of the route; "draft" without either).
func FileName(in Input) string {
	slug := library.Slug(in.Title)
	if slug == "" && in.Outcome != nil {
		slug = library.Slug(strings.ReplaceAll(in.Outcome.Route, "/", " "))
	}
	if len(slug) > 60 {
		slug = strings.TrimRight(slug[:60], "-")
	}
	if slug == "" {
		slug = "draft"
	}
	return in.ID + "-" + slug + ".md"
}

// Path is where the draft goes inside its layer's folder.
func Path(in Input) string { return "incidents/" + FileName(in) }

// todo is the placeholder of a field only a person can fill in.
func todo(what string) string { return quote("TODO: " + what) }

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// Markdown writes the draft.
func Markdown(in Input) string {
	var b strings.Builder
	day := in.Today.Format("2006-01-02")
	o := in.Outcome
	from := "casebook new incident"
	if o != nil {
		from = "the Casebook triage wizard (route " + o.Route + ")"
	}
	if in.ID == Placeholder {
		fmt.Fprintf(&b, "---\n# Draft from %s, %s. No team layer is loaded, so its id is a placeholder:\n", from, day)
		b.WriteString("# start your team's layer (a folder with layer.yaml, docs/layers.md) and number it with casebook new incident --layer DIR.\n")
	} else {
		fmt.Fprintf(&b, "---\n# Draft for layer %s from %s, %s.\n", in.Layer.Name, from, day)
	}
	b.WriteString("# Fill in every TODO: casebook lint lists each one until none is left.\n")
	fmt.Fprintf(&b, "id: %s\n", in.ID)
	if in.Title != "" {
		fmt.Fprintf(&b, "title: %s\n", quote(in.Title))
	} else {
		fmt.Fprintf(&b, "title: %s\n", todo("one line - what broke, for whom"))
	}
	fmt.Fprintf(&b, "title_ko: %s\n", todo("한 줄 제목"))
	fmt.Fprintf(&b, "summary: %s\n", todo("one sentence - what broke, for whom, and why"))
	fmt.Fprintf(&b, "summary_ko: %s\n", todo("한 문장 요약"))
	if in.Layer.Organization != "" {
		fmt.Fprintf(&b, "organization: %s\n", quote(in.Layer.Organization))
	} else {
		fmt.Fprintf(&b, "organization: %s\n", todo("the organisation it happened at"))
	}
	fmt.Fprintf(&b, "date: %s\nadded: %s\nkind: incident\n", day, day)
	var route, playbooks []string
	var components, symptoms []string
	if o != nil {
		route, playbooks = []string{o.Route}, []string{o.Playbook}
	}
	components, symptoms = in.known(library.FacetComponent, in.Components), in.known(library.FacetSymptom, in.Symptoms)
	if pb := in.Playbook; pb != nil && len(symptoms) == 0 && len(pb.Symptoms) > 0 {
		symptoms = in.known(library.FacetSymptom, pb.Symptoms[:1])
	}
	fmt.Fprintf(&b, "domains: %s\n", list(in.known(library.FacetDomain, domainsOf(o))))
	fmt.Fprintf(&b, "components: %s\n", list(components))
	b.WriteString("causes: [TODO]\n")
	fmt.Fprintf(&b, "symptoms: %s\n", list(symptoms))
	b.WriteString("contributing_factors: []\n")
	if len(route) > 0 {
		fmt.Fprintf(&b, "routes: [%s]\nplaybooks: [%s]\n", route[0], playbooks[0])
	}
	fmt.Fprintf(&b, "sources:\n  - url: %s\n    title: %s\n    kind: postmortem\n    retrieved: %s\n    quote: %s\n", todo("link to the postmortem document"), todo("its title"), day,
		todo("the passage that says what failed, why or what fixed it, copied verbatim"))
	b.WriteString("---\n\n")

	b.WriteString("## Symptom\n\nTODO: what users and operators saw, and when.\n\n")
	if o != nil {
		fmt.Fprintf(&b, "Triage route: `%s` (playbook `%s`, section `#%s`).\n\nDiagnosis: %s\n\n", o.Route, o.Playbook, o.Section, o.Diagnosis)
	}
	if len(in.Steps) > 0 {
		b.WriteString("Answers given in the triage wizard:\n\n")
		for _, st := range in.Steps {
			src := ""
			if st.Source != triage.SourcePerson {
				src = " (" + string(st.Source) + ")"
			}
			fmt.Fprintf(&b, "- %s — **%s**%s\n", st.Node.Question, st.Choice.Label, src)
			for _, e := range st.Evidence {
				fmt.Fprintf(&b, "  - evidence: `%s`\n", strings.ReplaceAll(e.Text, "`", "'"))
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("## Trigger\n\nTODO: the change or event that set it off.\n\n")
	b.WriteString("## Detection\n\nTODO: how it was noticed, by whom, and how long after it began.\n\n")
	b.WriteString("## Response\n\nTimeline (UTC):\n\n")
	if o != nil {
		fmt.Fprintf(&b, "- %s — the triage wizard routed to `%s`\n", in.Today.Format("2006-01-02 15:04"), o.Route)
	}
	b.WriteString("- TODO: HH:MM first alert or report\n- TODO: HH:MM mitigation applied\n- TODO: HH:MM recovery verified\n\n")
	if o != nil {
		commands := append([]string(nil), o.Commands...)
		mitigation := append([]string(nil), o.Mitigation...)
		for _, n := range o.Notes {
			commands = append(commands, n.Commands...)
			mitigation = append(mitigation, n.Mitigation...)
		}
		if len(commands) > 0 {
			b.WriteString("Commands the playbook suggests:\n\n")
			for _, c := range commands {
				fmt.Fprintf(&b, "```bash\n%s\n```\n\n", strings.TrimSpace(c))
			}
		}
		if len(mitigation) > 0 {
			b.WriteString("Mitigation the playbook suggests:\n\n")
			for _, m := range mitigation {
				fmt.Fprintf(&b, "- %s\n", m)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("## Follow-ups\n\n- TODO: owner, action, due date\n\n")
	if o != nil && len(o.Verify) > 0 {
		b.WriteString("Verification the playbook suggests:\n\n")
		for _, v := range o.Verify {
			fmt.Fprintf(&b, "- %s\n", v)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Lessons\n\nTODO: what a platform team should take away.\n")
	return b.String()
}

// Common returns the ids that at least half of the lists carry, most
// common first, at most limit: the terms the cases of a route share, a
// better start for a new case than every term its playbook covers.
func Common(lists [][]string, limit int) []string {
	count := map[string]int{}
	var order []string
	for _, l := range lists {
		for _, id := range l {
			if count[id] == 0 {
				order = append(order, id)
			}
			count[id]++
		}
	}
	var out []string
	for _, id := range order {
		if 2*count[id] >= len(lists) {
			out = append(out, id)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return count[out[i]] > count[out[j]] })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// list writes ids as a YAML flow list; none is a TODO for a required field.
func list(ids []string) string {
	if len(ids) == 0 {
		return "[TODO]"
	}
	return "[" + strings.Join(ids, ", ") + "]"
}

// known keeps the ids the taxonomy has.
func (in Input) known(f library.Facet, ids []string) []string {
	if in.Taxonomy == nil {
		return ids
	}
	var out []string
	for _, id := range ids {
		if _, ok := in.Taxonomy.Term(f, id); ok {
			out = append(out, id)
		}
	}
	return out
}

// domainsOf guesses the domains from the route's area; the person corrects
// them when the guess is wrong.
func domainsOf(o *triage.Outcome) []string {
	if o == nil {
		return []string{"kubernetes"}
	}
	area, _, _ := strings.Cut(o.Route, "/")
	switch area {
	case "gpu":
		return []string{"kubernetes", "gpu"}
	case "llm":
		return []string{"kubernetes", "llm-serving"}
	case "network":
		return []string{"kubernetes", "networking"}
	}
	return []string{"kubernetes"}
}

// Commands are the exact steps that add the draft to the layer's Git
// repository, run in the layer's folder (the one holding layer.yaml, or
// taxonomy.yaml for the public library), for the page and the CLI to show.
// downloaded is where the browser saved the file ("" when the CLI wrote it
// in place).
func Commands(in Input, downloaded string) []string {
	if in.ID == Placeholder {
		cmd := "casebook new incident --layer DIR"
		if in.Outcome != nil {
			cmd += " --route " + in.Outcome.Route
		}
		return []string{"mkdir -p DIR/incidents; $EDITOR DIR/layer.yaml   # name, prefix: docs/layers.md",
			cmd + "   # the layer's first id; copy the draft's text into the file it writes"}
	}
	p := Path(in)
	branch := "incident/" + strings.ToLower(in.ID)
	var out []string
	out = append(out, "git checkout -b "+branch)
	if downloaded != "" {
		out = append(out, "mv "+downloaded+" "+p)
	}
	out = append(out, "$EDITOR "+p+"   # fill in every TODO", "casebook lint .   # lists what is still TODO; clean before you push",
		"git add "+p, fmt.Sprintf("git commit -m %q", in.ID+": write-up"), "git push -u origin "+branch)
	return out
}
