package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"casebook/internal/content"
	"casebook/internal/i18n"
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
func (s *Server) currentTriage(r *http.Request) (*content.Content, *triage.Catalog, error) {
	c, err := s.current(r)
	if err != nil {
		return nil, nil, err
	}
	cat, err := triageCatalog(c)
	return c, cat, err
}

func triageCatalog(c *content.Content) (*triage.Catalog, error) {
	if c.Triage == nil || c.Triage.Root() == nil {
		return nil, userError(http.StatusServiceUnavailable, "error.trees_unavailable")
	}
	return c.Triage, nil
}

// handleTriage renders the wizard for the walk state in the URL.
func (s *Server) handleTriage(w http.ResponseWriter, r *http.Request) error {
	c, cat, err := s.currentTriage(r)
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
		return badRequestOf(err)
	}
	walk, err := cat.Walk(st, triage.Hints{})
	if err != nil {
		var se *triage.StateError
		if errors.As(err, &se) {
			return startAgain(err)
		}
		return err
	}
	p, err := s.walkPage(r, c, cat, walk, contextOf(r.URL.Query()), nil)
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
	pr := printer(r.Context())
	p := templates.TriagePage{Chrome: s.chrome(c, pr.T("triage.title"), "triage", ""), TreeTitle: treeTitle(pr, cat.Root()), Paste: paste, PasteResult: result}
	p.StartText, p.Start = symptoms(pr, cat)
	p.Cluster = s.clusterForm(r)
	return render(r.Context(), w, status, templates.TriageView(p))
}

// symptoms are the root question and its answers as links: the symptom
// buttons of the wizard's first screen and of the front page.
func symptoms(pr *i18n.Printer, cat *triage.Catalog) (string, []templates.Link) {
	root := cat.Root()
	start, ok := cat.Node(root.Start)
	if !ok || start.IsOutcome() {
		return "", nil
	}
	text, _, _ := questionText(pr, start)
	var out []templates.Link
	for i := range start.Choices {
		ch := &start.Choices[i]
		out = append(out, templates.Link{Label: choiceLabel(pr, ch), Href: triageHref(triage.State{Tree: root.ID}.With(start.ID, ch.ID))})
	}
	return text, out
}

// homeView is the front page's start: the paste box, the symptoms and the
// first five minutes.
func homeView(pr *i18n.Printer, cat *triage.Catalog) *templates.HomeView {
	h := &templates.HomeView{FirstFiveHref: "/playbooks/first-five-minutes"}
	h.StartText, h.Start = symptoms(pr, cat)
	return h
}

// walkPage builds the page for a walk: breadcrumbs, then the question to
// answer or the outcome. extra is evidence to show on the outcome (from a
// cluster read).
func (s *Server) walkPage(r *http.Request, c *content.Content, cat *triage.Catalog, walk *triage.Walk, wl *triage.Context, notices []string) (templates.TriagePage, error) {
	pr := printer(r.Context())
	title := treeTitle(pr, walk.Tree)
	p := templates.TriagePage{Chrome: s.chrome(c, pr.T("triage.title_tree", "tree", title), "triage", ""), TreeTitle: title, Notices: notices,
		RestartHref: "/triage"}
	full := walk.State()
	// The pod, namespace and node a paste named, the engineer gave or a
	// live read found fill every command of the walk and travel in each
	// of its links.
	for i, step := range walk.Steps {
		prefix := triage.State{Tree: full.Tree, Answers: full.Answers[:i:i]}
		q, _, _ := questionText(pr, step.Node)
		note, noteEN := stepNote(pr, step)
		p.Crumbs = append(p.Crumbs, templates.Crumb{Question: q, Answer: choiceLabel(pr, step.Choice), Source: string(step.Source),
			Evidence: evidenceLines(step.Evidence), Note: note, NoteEnglishOnly: noteEN, ChangeHref: withContext(triageHref(prefix), wl)})
	}
	if len(walk.Steps) > 0 {
		p.BackHref = withContext(triageHref(full.Back()), wl)
	}
	n := walk.Node
	if !n.IsOutcome() {
		text, help, english := questionText(pr, n)
		qv := &templates.QuestionView{ID: n.ID, Text: text, Help: help, Command: wl.Fill(n.Command), EnglishOnly: english,
			Step: len(walk.Steps) + 1, Of: len(walk.Steps) + cat.QuestionsLeft(n),
			UnsureHref: withContext(triageHref(full)+"&unsure=1#question", wl), Unsure: r.URL.Query().Get("unsure") == "1"}
		if strings.Contains(qv.Command, "<gpu-node>") || strings.Contains(qv.Command, "<node>") {
			// Asked once: the answer stays in the URL for every later
			// question and the outcome.
			qv.AskNode = &templates.NodeAsk{Tree: full.Tree, Answers: full.Encode(), Keep: contextHidden(wl)}
		}
		for i := range n.Choices {
			ch := &n.Choices[i]
			qv.Answers = append(qv.Answers, templates.Link{Label: choiceLabel(pr, ch), Href: withContext(triageHref(full.With(n.ID, ch.ID)), wl)})
		}
		if qv.Unsure {
			qv.Leads = questionLeads(r.Context(), c, cat, n)
		}
		p.Question = qv
		return p, nil
	}
	o := n.Outcome
	diagnosis, mitigation, verify, english := outcomeText(pr, o)
	ov := &templates.OutcomeView{Route: o.Route, Title: routeTitle(r.Context(), c, o.Route, o.Playbook, o.Section), Steps: len(walk.Steps), Diagnosis: diagnosis,
		Commands: fillAll(wl, o.Commands), Mitigation: fillAll(wl, mitigation), Verify: fillAll(wl, verify),
		PlaybookHref: withContext("/playbooks/"+o.Playbook+"#"+o.Section, wl), PlaybookTitle: o.Playbook, SectionTitle: o.Section,
		WriteupHref: "/triage/writeup?" + strings.TrimPrefix(triageHref(full), "/triage?"), EnglishOnly: english}
	ctx := r.Context()
	if err := writeupView(ctx, pr, c, walk, ov); err != nil {
		return p, err
	}
	if pb, err := c.Store.Playbook(ctx, o.Playbook); err == nil {
		ov.PlaybookTitle = playbookTitle(pr, pb)
		if t := headingTitle(pr, pb, o.Section); t != "" {
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
		ov.Incidents = append(ov.Incidents, templates.Link{Label: in.ID + " " + pr.PickText(in.Title, in.TitleKo), Href: "/incidents/" + in.ID})
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
	c, cat, err := s.currentTriage(r)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, pasteBodyLimit)
	if err := r.ParseForm(); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return userError(http.StatusRequestEntityTooLarge, "triage.paste_too_large")
		}
		return badRequestMsg("error.form_unreadable", "detail", err.Error())
	}
	text := r.PostForm.Get("text")
	if len(text) > triage.MaxInput {
		return userError(http.StatusRequestEntityTooLarge, "triage.paste_too_large")
	}
	return s.renderPaste(w, r, c, cat, text)
}

// renderPaste answers a paste (from the form or from a shared link) on the
// wizard's first screen, the paste kept in its box, with the link that
// shows the same result again.
func (s *Server) renderPaste(w http.ResponseWriter, r *http.Request, c *content.Content, cat *triage.Catalog, text string) error {
	if strings.TrimSpace(text) == "" {
		return s.renderTriageStart(w, r, c, cat, "", &templates.PasteView{Empty: true}, http.StatusBadRequest)
	}
	res := s.answerPaste(r.Context(), c, cat, text)
	// From here on only the redacted paste exists: the box, the link and
	// everything below show it.
	text = res.Text
	pr := printer(r.Context())
	pv := &templates.PasteView{Empty: len(res.Routes) == 0, Weak: res.Match == triage.MatchWeak, Redacted: res.Redacted}
	if link, ok := pasteLink(text); ok {
		pv.ShareHref = link
		if pr.Lang().Korean() {
			pv.ShareHref += "&lang=ko"
		}
	} else {
		pv.ShareTooLong = true
	}
	if res.Found != nil {
		pbs, err := playbooksByID(r.Context(), c)
		if err != nil {
			return err
		}
		cards, err := hitCards(r.Context(), c, pr, res.Found.Hits, pbs)
		if err != nil {
			return err
		}
		pv.Search = &templates.PasteSearch{Query: res.Searched, Total: res.Found.Total, Cards: cards, Href: "/search?" + url.Values{"q": {res.Searched}}.Encode()}
	} else {
		for _, rel := range res.Related {
			pv.Related = append(pv.Related, templates.Link{Label: s.relatedTitle(r.Context(), c, rel), Href: rel.URL, Kind: rel.Kind})
		}
	}
	wl := res.Context
	for i, rt := range res.Routes {
		// The routes a multi-reason scheduler message names are read on
		// the first card, not shown as cards of their own.
		if i > 0 && res.Scheduler.Names(rt.Route) {
			continue
		}
		rv, err := s.routeView(r.Context(), c, cat, rt, wl, i == 0)
		if err != nil {
			return err
		}
		if i == 0 {
			rv.Reading = readingView(pr, res.Scheduler)
			sp := triage.Specifics{}
			if res.Specifics != nil {
				for _, rs := range append([]triage.SchedulerReason{{Route: rt.Route}}, readingReasons(res.Scheduler)...) {
					part := res.Specifics.For(rs.Route)
					sp.Taints, sp.Selectors, sp.Shortfalls = append(sp.Taints, part.Taints...), append(sp.Selectors, part.Selectors...), append(sp.Shortfalls, part.Shortfalls...)
				}
			}
			rv.Specifics = specificsView(pr, dedupeSpecifics(sp))
		}
		if i == 0 || rt.Confidence >= triage.MatchConfidentAt {
			pv.Routes = append(pv.Routes, rv)
		} else {
			pv.Others = append(pv.Others, rv)
		}
	}
	if len(res.Routes) > 0 {
		if st, ok := furthestWalk(cat, res.Answers); ok {
			pv.ContinueHref = withContext(triageHref(st), wl)
		}
	}
	s.observeTriage(res.Result)
	return s.renderTriageStart(w, r, c, cat, text, pv, http.StatusOK)
}

// routeView is one route of a paste's answer. The first card carries what
// the engineer acts on: the diagnosis, the commands filled with the pod,
// the mitigation and the recovery check.
func (s *Server) routeView(ctx context.Context, c *content.Content, cat *triage.Catalog, rt triage.RouteMatch, wl *triage.Context, first bool) (templates.RouteView, error) {
	pr := printer(ctx)
	pbTitle := rt.Playbook
	if pb, err := c.Store.Playbook(ctx, rt.Playbook); err == nil {
		pbTitle = playbookTitle(pr, pb)
		if h := headingTitle(pr, pb, rt.Section); h != "" {
			pbTitle += " — " + h
		}
	}
	rv := templates.RouteView{Route: rt.Route, Title: routeTitle(ctx, c, rt.Route, rt.Playbook, rt.Section), Playbook: pbTitle,
		Href: withContext("/playbooks/"+rt.Playbook+"#"+rt.Section, wl), Confidence: int(rt.Confidence*100 + 0.5), Evidence: evidenceLines(rt.Evidence)}
	if first {
		if n, ok := cat.Route(rt.Route); ok && n.Outcome != nil {
			var mitigation, verify []string
			rv.Diagnosis, mitigation, verify, rv.EnglishOnly = outcomeText(pr, n.Outcome)
			rv.Commands, rv.Mitigation, rv.Verify = fillAll(wl, n.Outcome.Commands), fillAll(wl, mitigation), fillAll(wl, verify)
		}
	}
	ins, err := c.Store.IncidentsForRoute(ctx, rt.Route, 5)
	if err != nil {
		return rv, err
	}
	for _, in := range ins {
		rv.Incidents = append(rv.Incidents, templates.Link{Label: in.ID + " " + pr.PickText(in.Title, in.TitleKo), Href: "/incidents/" + in.ID})
	}
	return rv, nil
}

// readingReasons are a reading's reasons, none when there is no reading.
func readingReasons(rd *triage.SchedulerReading) []triage.SchedulerReason {
	if rd == nil {
		return nil
	}
	return rd.Reasons
}

// dedupeSpecifics drops what Specifics.For handed out twice (two reasons
// of one route).
func dedupeSpecifics(sp triage.Specifics) triage.Specifics {
	return triage.Specifics{Taints: uniq(sp.Taints), Selectors: uniq(sp.Selectors), Shortfalls: uniq(sp.Shortfalls)}
}

func uniq[T any](xs []T) []T {
	seen := map[string]bool{}
	var out []T
	for _, x := range xs {
		k := fmt.Sprintf("%v", x)
		if !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

// readingView words a scheduler reading for the first card: each reason
// with its node count, the first marked as acting first.
func readingView(pr *i18n.Printer, rd *triage.SchedulerReading) *templates.ReadingView {
	if rd == nil {
		return nil
	}
	v := &templates.ReadingView{Title: pr.T("triage.reading_title", "count", len(rd.Reasons)),
		Note: pr.T("triage.reading_note", "count", rd.Reasons[0].Count)}
	for i, x := range rd.Reasons {
		v.Reasons = append(v.Reasons, templates.ReadingReason{Text: pr.T("triage.reading_reason", "count", x.Count, "total", rd.Total), Reason: x.Reason, First: i == 0})
	}
	return v
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

// relatedTitle is a related library entry's title in the page's language.
func (s *Server) relatedTitle(ctx context.Context, c *content.Content, rel triage.Related) string {
	pr := printer(ctx)
	if !pr.Lang().Korean() {
		return rel.Title
	}
	switch rel.Kind {
	case "incident":
		if in, err := c.Store.Incident(ctx, rel.ID); err == nil {
			return pr.PickText(rel.Title, in.TitleKo)
		}
	case "playbook":
		if pb, err := c.Store.Playbook(ctx, rel.ID); err == nil {
			return playbookTitle(pr, pb)
		}
	}
	return rel.Title
}
