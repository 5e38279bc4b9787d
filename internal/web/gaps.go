package web

import (
	"context"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"casebook/internal/content"
	"casebook/internal/gaps"
	"casebook/web/templates"
)

// Gaps runs the library's gap checks; *gaps.Service implements it.
type Gaps interface {
	Live() bool
	TTL() time.Duration
	Run(ctx context.Context) (*gaps.Report, error)
	RunFile(ctx context.Context, name string, r io.Reader) (*gaps.Report, error)
}

// handleGaps runs every check against the configured cluster (a cached
// result when a recent one exists), or explains how to run them when no
// cluster is configured.
func (s *Server) handleGaps(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current()
	if err != nil {
		return err
	}
	p := templates.GapsPage{Chrome: s.chrome(c, "Gap checks", "gaps", "")}
	if s.gaps == nil || !s.gaps.Live() {
		return render(r.Context(), w, http.StatusOK, templates.GapsView(p))
	}
	p.Live = true
	if err := s.requireTriageAccess(r); err != nil {
		return err
	}
	rep, err := s.gaps.Run(r.Context())
	if err != nil {
		s.log.Warn("gap checks could not read the cluster", "err", err)
		p.Error = "Could not read the cluster: " + err.Error()
		return render(r.Context(), w, http.StatusOK, templates.GapsView(p))
	}
	fillGapsPage(&p, rep)
	p.CachedFor = s.gaps.TTL().String()
	return render(r.Context(), w, http.StatusOK, templates.GapsView(p))
}

// handleGapsUpload checks an uploaded inventory file; it reads no cluster.
func (s *Server) handleGapsUpload(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current()
	if err != nil {
		return err
	}
	if s.gaps == nil {
		return &httpError{http.StatusServiceUnavailable, "gap checks are not available on this portal"}
	}
	p := templates.GapsPage{Chrome: s.chrome(c, "Gap checks", "gaps", ""), Live: s.gaps.Live()}
	f, hdr, err := r.FormFile("inventory")
	if err != nil {
		return badRequest{"attach an inventory file (casebook gaps --save FILE) as the field \"inventory\""}
	}
	defer f.Close()
	rep, err := s.gaps.RunFile(r.Context(), path.Base(hdr.Filename), f)
	if err != nil {
		p.Error = err.Error()
		return render(r.Context(), w, http.StatusUnprocessableEntity, templates.GapsView(p))
	}
	fillGapsPage(&p, rep)
	return render(r.Context(), w, http.StatusOK, templates.GapsView(p))
}

// fillGapsPage turns a report into the page's view model: findings and
// errors grouped by severity, worst first, passed checks listed apart.
func fillGapsPage(p *templates.GapsPage, rep *gaps.Report) {
	p.Source, p.CollectedAt = rep.Source, rep.CollectedAt.Format("2006-01-02 15:04 MST")
	if sc := rep.Scope; len(sc.Namespaces) > 0 || sc.NodeSelector != "" {
		p.Scope = "namespaces " + orAll(strings.Join(sc.Namespaces, ", ")) + "; nodes " + orAll(sc.NodeSelector)
	}
	for _, res := range rep.Results {
		if res.Status == gaps.StatusPassed {
			p.Passed = append(p.Passed, templates.Link{Label: res.Title, Href: "#" + res.ID, Kind: res.ID})
			continue
		}
		if res.Status == gaps.StatusFound {
			p.Found++
		} else {
			p.Errors++
		}
		sev := res.Severity.String()
		if n := len(p.Groups); n == 0 || p.Groups[n-1].Severity != sev {
			p.Groups = append(p.Groups, templates.GapGroup{Severity: sev})
		}
		g := &p.Groups[len(p.Groups)-1]
		g.Results = append(g.Results, gapResult(res))
	}
}

func gapResult(res gaps.Result) templates.GapResult {
	out := templates.GapResult{ID: res.ID, Title: res.Title, Severity: res.Severity.String(), Status: string(res.Status),
		Message: res.Message, Error: res.Error, Partial: res.Partial, Fix: res.Fix, More: res.Count - len(res.Objects), Source: "library/" + res.Path}
	for _, o := range res.Objects {
		out.Objects = append(out.Objects, templates.GapObject{Object: o.Object, Detail: o.Detail})
	}
	for _, id := range res.Incidents {
		out.Incidents = append(out.Incidents, templates.Link{Label: id, Href: gaps.IncidentURL("", id)})
	}
	for _, pb := range res.Playbooks {
		out.Playbooks = append(out.Playbooks, templates.Link{Label: pb, Href: gaps.PlaybookURL("", pb)})
	}
	return out
}

// checkLinks are an incident page's "check my cluster" links: one per
// check that cites it, to its place on /gaps.
func checkLinks(ctx context.Context, c *content.Content, incident string) []templates.Link {
	if c.Checks == nil {
		return nil
	}
	var out []templates.Link
	for _, chk := range c.Checks.For(incident) {
		out = append(out, templates.Link{Label: printer(ctx).PickText(chk.Title, chk.TitleKo), Href: "/gaps#" + chk.ID})
	}
	return out
}

func orAll(s string) string {
	if s == "" {
		return "all"
	}
	return s
}
