package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"casebook/internal/content"
	"casebook/internal/drill"
	"casebook/internal/drilltext"
	"casebook/internal/i18n"
	"casebook/internal/triage"
	"casebook/web/templates"
)

// handleDrillDebrief scores an attempt (c, route, rec, e) or, with none,
// shows the facilitator's debrief of what the drill teaches. The answer
// form sends the start time t instead of e: the time taken is counted
// here, on the server's clock, and the page redirects to a URL without t
// that shows the same debrief to whoever opens it.
func (s *Server) handleDrillDebrief(w http.ResponseWriter, r *http.Request) error {
	c, cat, d, err := s.drillFor(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	now := time.Now()
	st, err := parseDrillState(q, now)
	if err != nil {
		return err
	}
	if st.start > 0 {
		v := url.Values{}
		for _, c := range st.cmds {
			v.Add("c", c)
		}
		if rt := q.Get("route"); rt != "" {
			v.Set("route", rt)
		}
		if rec := strings.TrimSpace(q.Get("rec")); rec != "" {
			v.Set("rec", rec)
		}
		v.Set("e", strconv.FormatInt(int64(now.Sub(time.Unix(st.start, 0))/time.Second), 10))
		http.Redirect(w, r, drillHref(d.ID, "debrief", v), http.StatusSeeOther)
		return nil
	}
	pr := printer(r.Context())
	p := templates.DrillDebriefPage{Chrome: s.chrome(c, pr.T("drill.debrief")+": "+d.Title.In(drilltext.Lang(pr)), "drills", "")}
	fillDrillSummary(r.Context(), pr, &p.DrillSummary, c, cat, d)
	_, attempted := q["e"]
	if !attempted && q.Get("route") == "" && len(st.cmds) == 0 {
		return render(r.Context(), w, http.StatusOK, templates.DrillDebriefView(p))
	}
	a := drill.Attempt{Commands: st.cmds, Route: q.Get("route"), Recovery: q.Get("rec")}
	if e := q.Get("e"); e != "" {
		sec, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			return badRequestMsg("error.drill_elapsed", "value", i18n.Quote(e))
		}
		a.Elapsed = time.Duration(sec) * time.Second
	}
	db, err := d.Grade(a, cat)
	if errors.Is(err, drill.ErrAttempt) {
		return badRequestOf(err)
	}
	if err != nil {
		return err
	}
	p.Attempt = attemptView(pr, db)
	p.Attempt.Retry = drillHref(d.ID, "", nil)
	return render(r.Context(), w, http.StatusOK, templates.DrillDebriefView(p))
}

func attemptView(pr *i18n.Printer, db *drill.Debrief) *templates.DrillAttempt {
	lang := drilltext.Lang(pr)
	sc := db.Score
	a := &templates.DrillAttempt{Route: db.Attempt.Route, Verdict: db.Verdict, VerdictText: drilltext.Verdict(pr, db.Verdict),
		Recovery: db.Attempt.Recovery, Total: sc.Total, RoutePts: sc.Route, EvidencePts: sc.Evidence, CommandPts: sc.Commands, TimePts: sc.Time,
		Used: sc.Used, Par: sc.Par, Elapsed: db.Attempt.Elapsed.String(), Target: time.Duration(sc.TargetSec * int(time.Second)).String()}
	for _, e := range db.Found {
		a.Found = append(a.Found, evidenceView(e, lang))
	}
	for _, e := range db.Missed {
		a.Missed = append(a.Missed, evidenceView(e, lang))
	}
	for _, e := range db.Decoy {
		a.DecoySeen = append(a.DecoySeen, evidenceView(e, lang))
	}
	for _, st := range db.Steps {
		a.Commands = append(a.Commands, st.Command)
	}
	return a
}

func evidenceView(e drill.Evidence, lang string) templates.DrillEvidence {
	cmd := e.Command
	if !strings.HasPrefix(cmd, "kubectl ") {
		cmd = "kubectl " + cmd
	}
	return templates.DrillEvidence{Command: cmd, Line: e.Line, Why: e.Why.In(lang)}
}

// fillDrillSummary fills what both the brief and the debrief show: the
// scenario, the expected route and its playbook section, the evidence,
// the decoy, the recovery direction, the incidents, and what live triage
// makes of the recording.
func fillDrillSummary(ctx context.Context, pr *i18n.Printer, p *templates.DrillSummary, c *content.Content, cat *triage.Catalog, d *drill.Drill) {
	lang := drilltext.Lang(pr)
	*p = templates.DrillSummary{ID: d.ID, Title: d.Title.In(lang), Difficulty: drilltext.Difficulty(pr, d.Difficulty), Family: drilltext.Family(pr, d.Family().ID),
		StartKind: drilltext.Kind(pr, d.Start.Kind), StartFrom: d.Start.From, StartText: d.Start.Text.In(lang),
		Route: d.Route, Recovery: d.Recovery.In(lang), Teaches: d.Teaches.In(lang), Target: d.Difficulty.Target().String(),
		Run: drillHref(d.ID, "", nil), Brief: drillHref(d.ID, "brief", nil), Debrief: drillHref(d.ID, "debrief", nil), Par: d.Par()}
	if o, ok := d.Outcome(cat); ok {
		p.Playbook = templates.Link{Label: o.Playbook + "#" + o.Section, Href: "/playbooks/" + o.Playbook + "#" + o.Section}
		p.Diagnosis = pr.PickText(o.Diagnosis, o.DiagnosisKo)
	}
	for _, e := range d.Evidence {
		p.Evidence = append(p.Evidence, evidenceView(e, lang))
	}
	for _, h := range d.Hints {
		p.Hints = append(p.Hints, h.In(lang))
	}
	for _, a := range d.Answers {
		q := a.Question
		if n, ok := cat.Node(a.Question); ok {
			q = pr.PickText(n.Question, n.QuestionKo)
		}
		p.Answers = append(p.Answers, templates.DrillAnswer{Question: q, Answer: a.Choice, Line: a.Line, Why: a.Why.In(lang)})
	}
	if dc := d.Decoy; dc != nil {
		p.Decoy = &templates.DrillDecoy{Route: dc.Route, Text: dc.Text.In(lang)}
		for _, e := range dc.Evidence {
			p.Decoy.Evidence = append(p.Decoy.Evidence, evidenceView(e, lang))
		}
	}
	for _, id := range d.Incidents {
		l := templates.Link{Label: id, Href: "/incidents/" + id, Kind: "case"}
		if in, err := c.Store.Incident(ctx, id); err == nil {
			l.Label = id + " · " + pr.PickText(in.Title, in.TitleKo)
		}
		p.Incidents = append(p.Incidents, l)
	}
	route, stopped, err := d.ProbedRoute(cat)
	switch {
	case err != nil:
		p.Probed = err.Error()
	case route == d.Route:
		p.Probed, p.ProbedOK = route+": "+pr.T("drill.live_agrees"), true
	case route != "":
		p.Probed = route + ": " + pr.T("drill.live_disagrees")
	default:
		p.Probed = stopped + ": " + pr.T("drill.live_stops")
	}
}

// handleDrillBrief is the facilitator's printable brief: the scenario to
// read out, hints to give step by step, and what to look for.
func (s *Server) handleDrillBrief(w http.ResponseWriter, r *http.Request) error {
	c, cat, d, err := s.drillFor(r)
	if err != nil {
		return err
	}
	pr := printer(r.Context())
	p := templates.DrillBriefPage{Chrome: s.chrome(c, pr.T("drill.brief")+": "+d.Title.In(drilltext.Lang(pr)), "drills", "")}
	fillDrillSummary(r.Context(), pr, &p.DrillSummary, c, cat, d)
	return render(r.Context(), w, http.StatusOK, templates.DrillBriefView(p))
}
