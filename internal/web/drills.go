package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"casebook/internal/content"
	"casebook/internal/drill"
	"casebook/internal/drilltext"
	"casebook/internal/i18n"
	"casebook/internal/kubectl"
	"casebook/internal/triage"
	"casebook/web/templates"
)

// Drills gives the pages the current library's drills; *drill.Service
// implements it.
type Drills interface {
	Set() (*drill.Set, error)
}

// drillState is everything a drill run keeps, in the URL: when it started
// (unix seconds, the server's clock) and the commands run so far. The
// language travels as everywhere else (?lang, the cookie).
type drillState struct {
	start int64
	cmds  []string
}

// parseDrillState reads t and c (repeated). Commands are checked against
// the drill when they are replayed.
func parseDrillState(q url.Values, now time.Time) (drillState, error) {
	var st drillState
	if t := q.Get("t"); t != "" {
		v, err := strconv.ParseInt(t, 10, 64)
		if err != nil || v <= 0 || time.Unix(v, 0).After(now.Add(time.Minute)) || now.Sub(time.Unix(v, 0)) > drill.MaxElapsed {
			return st, badRequestMsg("error.drill_start", "value", i18n.Quote(t))
		}
		st.start = v
	}
	st.cmds = q["c"]
	if len(st.cmds) > drill.MaxCommands {
		return st, badRequestMsg("error.drill_commands", "count", strconv.Itoa(len(st.cmds)), "max", strconv.Itoa(drill.MaxCommands))
	}
	return st, nil
}

func (st drillState) values() url.Values {
	v := url.Values{}
	if st.start > 0 {
		v.Set("t", strconv.FormatInt(st.start, 10))
	}
	for _, c := range st.cmds {
		v.Add("c", c)
	}
	return v
}

func drillHref(id, page string, v url.Values) string {
	p := "/drills/" + id
	if page != "" {
		p += "/" + page
	}
	if len(v) > 0 {
		p += "?" + v.Encode()
	}
	return p
}

// drillSet returns the drills or a 503 when they cannot be read.
func (s *Server) drillSet() (*drill.Set, error) {
	if s.drills == nil {
		return nil, userError(http.StatusServiceUnavailable, "error.drills_off")
	}
	set, err := s.drills.Set()
	if err != nil {
		s.log.Warn("drills did not load", "err", err)
		return nil, userError(http.StatusServiceUnavailable, "error.drills_failed")
	}
	return set, nil
}

func (s *Server) drillFor(r *http.Request) (*content.Content, *triage.Catalog, *drill.Drill, error) {
	c, cat, err := s.currentTriage(r)
	if err != nil {
		return nil, nil, nil, err
	}
	set, err := s.drillSet()
	if err != nil {
		return nil, nil, nil, err
	}
	id := chi.URLParam(r, "id")
	d, ok := set.Drill(id)
	if !ok {
		return nil, nil, nil, userError(http.StatusNotFound, "error.no_drill", "id", i18n.Quote(id))
	}
	return c, cat, d, nil
}

// handleDrills lists the drills by route family.
func (s *Server) handleDrills(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	set, err := s.drillSet()
	if err != nil {
		return err
	}
	pr := printer(r.Context())
	lang := drilltext.Lang(pr)
	p := templates.DrillListPage{Chrome: s.chrome(c, pr.T("drill.title"), "drills", ""), Count: len(set.Drills)}
	for _, f := range drill.Families {
		g := templates.DrillGroup{Family: drilltext.Family(pr, f.ID), ID: f.ID}
		for _, d := range set.Drills {
			if d.Family().ID != f.ID {
				continue
			}
			card := templates.DrillCard{ID: d.ID, Title: d.Title.In(lang), Difficulty: drilltext.Difficulty(pr, d.Difficulty),
				Start: drilltext.Kind(pr, d.Start.Kind) + " · " + d.Start.From,
				Href:  drillHref(d.ID, "", nil), Brief: drillHref(d.ID, "brief", nil), Debrief: drillHref(d.ID, "debrief", nil),
				Decoy: d.Decoy != nil}
			for _, id := range d.Incidents {
				card.Incidents = append(card.Incidents, templates.Link{Label: id, Href: "/incidents/" + id})
			}
			g.Drills = append(g.Drills, card)
		}
		if len(g.Drills) > 0 {
			p.Groups = append(p.Groups, g)
		}
	}
	return render(r.Context(), w, http.StatusOK, templates.DrillListView(p))
}

// handleDrill is the runner: the starting symptom, the terminal with every
// command run so far, and the answer form. Opening a drill starts its
// clock (t); running a command (cmd) appends it to the state and
// redirects, so every URL is a shareable, replayable run.
func (s *Server) handleDrill(w http.ResponseWriter, r *http.Request) error {
	c, cat, d, err := s.drillFor(r)
	if err != nil {
		return err
	}
	now := time.Now()
	q := r.URL.Query()
	st, err := parseDrillState(q, now)
	if err != nil {
		return err
	}
	if st.start == 0 {
		st.start = now.Unix()
		http.Redirect(w, r, drillHref(d.ID, "", st.values()), http.StatusSeeOther)
		return nil
	}
	steps, err := d.Replay(st.cmds)
	if err != nil {
		return badRequestOf(err)
	}
	pr := printer(r.Context())
	var cmdErr, typed string
	if line := strings.TrimSpace(q.Get("cmd")); line != "" {
		step, err := d.Run(line)
		var ke *kubectl.Error
		switch {
		case err == nil && len(st.cmds) >= drill.MaxCommands:
			cmdErr, typed = pr.T("drill.too_many"), line
		case err == nil:
			st.cmds = append(st.cmds, step.Key)
			http.Redirect(w, r, drillHref(d.ID, "", st.values())+fmt.Sprintf("#step-%d", len(st.cmds)), http.StatusSeeOther)
			return nil
		case errors.As(err, &ke) && ke.Kind == kubectl.ReadOnly:
			cmdErr, typed = err.Error()+"\n"+pr.T("drill.readonly"), line
		case errors.As(err, &ke) && ke.Kind == kubectl.Unsupported:
			cmdErr, typed = err.Error()+"\n("+pr.T("drill.unsupported")+")", line
		case errors.As(err, &ke):
			cmdErr, typed = err.Error(), line
		default:
			return badRequestOf(err)
		}
	}
	p := drillRunPage(pr, s.chrome(c, d.Title.In(drilltext.Lang(pr)), "drills", ""), d, cat, st, steps, now)
	p.CmdError, p.Typed = cmdErr, typed
	// People pick a cause by its name; the id is only the form's value.
	for i := range p.Routes {
		for j, o := range p.Routes[i].Routes {
			if n, ok := cat.Route(o.Href); ok && n.Outcome != nil {
				p.Routes[i].Routes[j].Label = routeTitle(r.Context(), c, o.Href, n.Outcome.Playbook, n.Outcome.Section)
			}
		}
	}
	return render(r.Context(), w, http.StatusOK, templates.DrillRunView(p))
}

func drillRunPage(pr *i18n.Printer, ch templates.Chrome, d *drill.Drill, cat *triage.Catalog, st drillState, steps []drill.Step, now time.Time) templates.DrillRunPage {
	lang := drilltext.Lang(pr)
	p := templates.DrillRunPage{Chrome: ch, ID: d.ID, Title: d.Title.In(lang),
		Difficulty: drilltext.Difficulty(pr, d.Difficulty), Family: drilltext.Family(pr, d.Family().ID),
		StartKind: drilltext.Kind(pr, d.Start.Kind), StartFrom: d.Start.From, StartText: d.Start.Text.In(lang),
		Namespace: d.Snapshot.Target.Namespace, Action: "/drills/" + d.ID, DebriefAction: "/drills/" + d.ID + "/debrief",
		Restart: drillHref(d.ID, "", nil), Brief: drillHref(d.ID, "brief", nil),
		Elapsed: now.Sub(time.Unix(st.start, 0)).Round(time.Second).String(), Target: d.Difficulty.Target().String()}
	for k, vs := range st.values() {
		for _, v := range vs {
			p.Hidden = append(p.Hidden, templates.KV{Key: k, Value: v})
		}
	}
	for i, stp := range steps {
		p.Steps = append(p.Steps, templates.DrillStep{N: i + 1, Command: stp.Command, Output: stp.Output})
	}
	p.Routes = routeOptions(pr, cat)
	p.Examples = []string{"kubectl get pods -n " + d.Snapshot.Target.Namespace, "kubectl describe pod " + d.Snapshot.Target.Name,
		"kubectl get events", "kubectl get nodes -o wide", "kubectl describe node NAME", "kubectl logs POD --previous"}
	return p
}

// routeOptions groups every route by family for the answer's select.
func routeOptions(pr *i18n.Printer, cat *triage.Catalog) []templates.RouteGroup {
	ids := cat.RouteIDs()
	var out []templates.RouteGroup
	for _, f := range drill.Families {
		g := templates.RouteGroup{Family: drilltext.Family(pr, f.ID)}
		for _, id := range ids {
			if drill.FamilyOf(id).ID == f.ID {
				g.Routes = append(g.Routes, templates.Link{Label: id, Href: id})
			}
		}
		if len(g.Routes) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// drillLinks are an incident page's links to the drills modelled on it.
func (s *Server) drillLinks(ctx context.Context, incident string) []templates.Link {
	if s.drills == nil {
		return nil
	}
	set, err := s.drills.Set()
	if err != nil {
		return nil
	}
	lang := drilltext.Lang(printer(ctx))
	var out []templates.Link
	for _, d := range set.ForIncident(incident) {
		out = append(out, templates.Link{Label: d.Title.In(lang), Href: "/drills/" + d.ID})
	}
	return out
}
