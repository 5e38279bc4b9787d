package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"casebook/internal/content"
	"casebook/internal/triage"
	"casebook/web/templates"
)

// triageHref is the URL of a walk state; the whole wizard state lives in it.
func triageHref(s triage.State) string {
	v := url.Values{"tree": {s.Tree}}
	if a := s.Encode(); a != "" {
		v.Set("a", a)
	}
	return "/triage?" + v.Encode()
}

// currentTriage returns the loaded content and its triage catalogue.
func (s *Server) currentTriage() (*content.Content, *triage.Catalog, error) {
	c, err := s.current()
	if err != nil {
		return nil, nil, err
	}
	cat, err := triageCatalog(c)
	return c, cat, err
}

func triageCatalog(c *content.Content) (*triage.Catalog, error) {
	if c.Triage == nil || c.Triage.Root() == nil {
		return nil, &httpError{http.StatusServiceUnavailable, "the triage trees did not load; see /api/problems"}
	}
	return c.Triage, nil
}

// handleTriage renders the wizard for the walk state in the URL.
func (s *Server) handleTriage(w http.ResponseWriter, r *http.Request) error {
	c, cat, err := s.currentTriage()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	if q.Get("tree") == "" {
		if pb := q.Get("playbook"); pb != "" {
			if t := treeForPlaybook(cat, pb); t != "" {
				http.Redirect(w, r, triageHref(triage.State{Tree: t}), http.StatusSeeOther)
				return nil
			}
		}
		return s.renderTriageStart(w, r, c, cat, "", nil, http.StatusOK)
	}
	st, err := triage.ParseState(q.Get("tree"), q.Get("a"))
	if err != nil {
		return badRequest{err.Error()}
	}
	walk, err := cat.Walk(st, triage.Hints{})
	if err != nil {
		var se *triage.StateError
		if errors.As(err, &se) {
			return badRequest{err.Error() + "; start again at /triage"}
		}
		return err
	}
	p, err := s.walkPage(r, c, cat, walk, nil)
	if err != nil {
		return err
	}
	return render(r.Context(), w, http.StatusOK, templates.TriageView(p))
}

// treeForPlaybook picks the tree whose outcomes land in a playbook, so a
// playbook page can start the wizard at its own symptom.
func treeForPlaybook(cat *triage.Catalog, playbook string) string {
	for _, t := range cat.Trees {
		if t.Root {
			continue
		}
		for _, n := range t.Nodes {
			if n.Outcome != nil && n.Outcome.Playbook == playbook {
				return t.ID
			}
		}
	}
	return ""
}

// renderTriageStart shows the first screen: the root question's answers as
// symptom buttons, the paste box and, when configured, the cluster form.
func (s *Server) renderTriageStart(w http.ResponseWriter, r *http.Request, c *content.Content, cat *triage.Catalog, paste string, result *templates.PasteView, status int) error {
	root := cat.Root()
	start, _ := cat.Node(root.Start)
	p := templates.TriagePage{Chrome: s.chrome(c, "Triage", "triage", ""), TreeTitle: root.Title, Paste: paste, PasteResult: result}
	if start != nil && !start.IsOutcome() {
		p.StartText = start.Question
		for _, ch := range start.Choices {
			p.Start = append(p.Start, templates.Link{Label: ch.Label, Href: triageHref(triage.State{Tree: root.ID}.With(start.ID, ch.ID))})
		}
	}
	if s.cluster != nil {
		p.Cluster = s.cluster.form(r)
	}
	return render(r.Context(), w, status, templates.TriageView(p))
}

// walkPage builds the page for a walk: breadcrumbs, then the question to
// answer or the outcome. extra is evidence to show on the outcome (from a
// cluster read).
func (s *Server) walkPage(r *http.Request, c *content.Content, cat *triage.Catalog, walk *triage.Walk, notices []string) (templates.TriagePage, error) {
	p := templates.TriagePage{Chrome: s.chrome(c, "Triage: "+walk.Tree.Title, "triage", ""), TreeTitle: walk.Tree.Title, Notices: notices,
		RestartHref: "/triage"}
	full := walk.State()
	for i, step := range walk.Steps {
		prefix := triage.State{Tree: full.Tree, Answers: full.Answers[:i:i]}
		p.Crumbs = append(p.Crumbs, templates.Crumb{Question: step.Node.Question, Answer: step.Choice.Label, Source: string(step.Source),
			Evidence: evidenceLines(step.Evidence), Note: step.Note, ChangeHref: triageHref(prefix)})
	}
	if len(walk.Steps) > 0 {
		p.BackHref = triageHref(full.Back())
	}
	n := walk.Node
	if !n.IsOutcome() {
		qv := &templates.QuestionView{ID: n.ID, Text: n.Question, Help: n.Help, Command: n.Command}
		for _, ch := range n.Choices {
			qv.Answers = append(qv.Answers, templates.Link{Label: ch.Label, Href: triageHref(full.With(n.ID, ch.ID))})
		}
		p.Question = qv
		return p, nil
	}
	o := n.Outcome
	ov := &templates.OutcomeView{Route: o.Route, Diagnosis: o.Diagnosis, Commands: o.Commands, Mitigation: o.Mitigation, Verify: o.Verify,
		PlaybookHref: "/playbooks/" + o.Playbook + "#" + o.Section, PlaybookTitle: o.Playbook, SectionTitle: o.Section,
		WriteupHref: "/triage/writeup?" + strings.TrimPrefix(triageHref(full), "/triage?")}
	ctx := r.Context()
	if pb, err := c.Store.Playbook(ctx, o.Playbook); err == nil {
		ov.PlaybookTitle = pb.Title
		if t := pb.HeadingTitle(o.Section); t != "" {
			ov.SectionTitle = t
		}
	}
	// The cases of this route, not every incident that links the
	// playbook: the outcome answers "who else hit exactly this?".
	ins, err := c.Store.IncidentsForRoute(ctx, o.Route, 8)
	if err != nil {
		return p, err
	}
	for _, in := range ins {
		ov.Incidents = append(ov.Incidents, templates.Link{Label: in.ID + " " + in.Title, Href: "/incidents/" + in.ID})
	}
	for _, st := range walk.Steps {
		ov.Evidence = append(ov.Evidence, evidenceLines(st.Evidence)...)
	}
	p.Outcome = ov
	return p, nil
}

func evidenceLines(ev []triage.Evidence) []templates.EvidenceLine {
	out := make([]templates.EvidenceLine, 0, len(ev))
	for _, e := range ev {
		out = append(out, templates.EvidenceLine{LineNo: e.LineNo, Text: e.Text, Signal: e.Signal})
	}
	return out
}

// handleTriagePaste classifies a pasted text (a form post) and shows the
// ranked routes with the matched lines, and a link into the wizard with the
// answers the paste implies marked as inferred.
func (s *Server) handleTriagePaste(w http.ResponseWriter, r *http.Request) error {
	c, cat, err := s.currentTriage()
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, triage.MaxInput+64*1024)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return &httpError{http.StatusRequestEntityTooLarge, "the paste is larger than 1 MiB; paste the Events and the failing lines only"}
		}
		return badRequest{"could not read the form: " + err.Error()}
	}
	text := r.PostForm.Get("text")
	if len(text) > triage.MaxInput {
		return &httpError{http.StatusRequestEntityTooLarge, "the paste is larger than 1 MiB; paste the Events and the failing lines only"}
	}
	if strings.TrimSpace(text) == "" {
		return s.renderTriageStart(w, r, c, cat, "", &templates.PasteView{Empty: true}, http.StatusBadRequest)
	}
	res := s.answerPaste(r.Context(), c, cat, text)
	pv := &templates.PasteView{Empty: len(res.Routes) == 0, Weak: res.Match == triage.MatchWeak}
	for _, rel := range res.Related {
		pv.Related = append(pv.Related, templates.Link{Label: rel.Title, Href: rel.URL, Kind: rel.Kind})
	}
	for _, rt := range res.Routes {
		rv := templates.RouteView{Route: rt.Route, Playbook: rt.Playbook, Href: "/playbooks/" + rt.Playbook + "#" + rt.Section,
			Confidence: int(rt.Confidence*100 + 0.5), Evidence: evidenceLines(rt.Evidence)}
		ins, err := c.Store.IncidentsForRoute(r.Context(), rt.Route, 5)
		if err != nil {
			return err
		}
		for _, in := range ins {
			rv.Incidents = append(rv.Incidents, templates.Link{Label: in.ID + " " + in.Title, Href: "/incidents/" + in.ID})
		}
		pv.Routes = append(pv.Routes, rv)
	}
	if len(res.Routes) > 0 {
		if st, ok := furthestWalk(cat, res.Answers); ok {
			pv.ContinueHref = triageHref(st)
		}
	}
	s.observeTriage(res)
	return s.renderTriageStart(w, r, c, cat, text, pv, http.StatusOK)
}

// furthestWalk lands a paste as deep in the trees as its answers reach. When
// the paste says nothing about the first question (which symptom), each
// symptom is tried as an inferred answer and the one that lets the most
// hinted questions answer themselves wins.
func furthestWalk(cat *triage.Catalog, hints map[string]triage.Answer) (triage.State, bool) {
	root := cat.Root()
	h := triage.Hints{Paste: hints}
	best, err := cat.Walk(triage.State{Tree: root.ID}, h)
	if err != nil {
		return triage.State{}, false
	}
	if len(best.Steps) == 0 {
		if start, ok := cat.Node(root.Start); ok && !start.IsOutcome() {
			for _, ch := range start.Choices {
				st := triage.State{Tree: root.ID, Answers: []triage.Given{{Question: start.ID, Choice: ch.ID, Inferred: true}}}
				w, err := cat.Walk(st, h)
				if err == nil && len(w.Steps) > len(best.Steps) && (len(w.Steps) > 1 || w.Node.IsOutcome()) {
					best = w
				}
			}
		}
	}
	return best.State(), true
}
