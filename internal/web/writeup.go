package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"casebook/internal/triage"
)

// handleWriteup turns a finished walk into a Markdown draft in the incident
// format, following the postmortem-template playbook, so a triage can become
// a library entry.
func (s *Server) handleWriteup(w http.ResponseWriter, r *http.Request) error {
	_, cat, err := s.currentTriage()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	st, err := triage.ParseState(q.Get("tree"), q.Get("a"))
	if err != nil {
		return badRequest{err.Error()}
	}
	walk, err := cat.Walk(st, triage.Hints{})
	if err != nil {
		var se *triage.StateError
		if errors.As(err, &se) {
			return badRequest{err.Error()}
		}
		return err
	}
	if !walk.Node.IsOutcome() {
		return badRequest{"the walk has not reached an outcome yet; answer the remaining questions first"}
	}
	md := writeupMarkdown(walk, time.Now().UTC())
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="incident-draft-`+strings.ReplaceAll(walk.Node.Outcome.Route, "/", "-")+`.md"`)
	_, err = w.Write([]byte(md))
	return err
}

// writeupMarkdown is pure so tests can check the draft directly.
func writeupMarkdown(walk *triage.Walk, now time.Time) string {
	o := walk.Node.Outcome
	var b strings.Builder
	yamlStr := func(s string) string {
		return "\"" + strings.ReplaceAll(strings.ReplaceAll(s, "\\", "\\\\"), "\"", "\\\"") + "\""
	}
	fmt.Fprintf(&b, "---\n# Draft from the Casebook triage wizard (%s). Fill in the TODOs, pick taxonomy ids\n# from library/taxonomy.yaml, run `casebook lint`, then open a pull request.\n", o.Route)
	fmt.Fprintf(&b, "id: IL-XXXX\ntitle: %s\nsummary: TODO one sentence - what broke, for whom, and why.\norganization: TODO\ndate: %s\n", yamlStr("TODO: "+o.Diagnosis), now.Format("2006-01-02"))
	fmt.Fprintf(&b, "domains: [kubernetes]\ncomponents: []\ncauses: []\nsymptoms: []\ncontributing_factors: []\n")
	fmt.Fprintf(&b, "trigger: TODO\ndetection: TODO\nsources:\n  - url: https://example.invalid/TODO-internal-postmortem\n    title: TODO\n    kind: postmortem\nplaybooks: [%s]\n---\n\n", o.Playbook)
	fmt.Fprintf(&b, "## Symptom\n\nTODO: what users and operators saw.\n\nTriage route: `%s` (playbook `%s`, section `#%s`).\n\nDiagnosis: %s\n\n", o.Route, o.Playbook, o.Section, o.Diagnosis)
	b.WriteString("Answers given in the triage wizard:\n\n")
	for _, st := range walk.Steps {
		src := ""
		if st.Source != triage.SourcePerson {
			src = " (" + string(st.Source) + ")"
		}
		fmt.Fprintf(&b, "- %s — **%s**%s\n", st.Node.Question, st.Choice.Label, src)
		for _, e := range st.Evidence {
			fmt.Fprintf(&b, "  - evidence: `%s`\n", strings.ReplaceAll(e.Text, "`", "'"))
		}
	}
	b.WriteString("\n## Trigger\n\nTODO: the event that set it off.\n\n## Detection\n\nTODO: how it was noticed, by whom, and how long after it began.\n\n")
	b.WriteString("## Response\n\nTimeline (UTC):\n\n")
	fmt.Fprintf(&b, "- %s — triage wizard routed to `%s`\n- HH:MM — TODO first alert or report\n- HH:MM — TODO mitigation applied\n- HH:MM — TODO recovery verified\n\n", now.Format("2006-01-02 15:04"), o.Route)
	b.WriteString("Commands run:\n\n")
	for _, c := range o.Commands {
		fmt.Fprintf(&b, "```bash\n%s\n```\n\n", strings.TrimSpace(c))
	}
	b.WriteString("Mitigation:\n\n")
	for _, m := range o.Mitigation {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	b.WriteString("\n## Follow-ups\n\n- TODO: owner, action, due date\n\nVerification used:\n\n")
	for _, v := range o.Verify {
		fmt.Fprintf(&b, "- %s\n", v)
	}
	b.WriteString("\n## Lessons\n\nTODO: what a platform team should take away.\n")
	return b.String()
}
