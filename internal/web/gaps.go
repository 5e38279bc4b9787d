package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"casebook/internal/access"
	"casebook/internal/content"
	"casebook/internal/gaps"
	"casebook/internal/i18n"
	"casebook/internal/inventory"
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
	c, err := s.current(r)
	if err != nil {
		return err
	}
	pr := printer(r.Context())
	p := templates.GapsPage{Chrome: s.chrome(c, pr.T("gaps.title"), "gaps", "")}
	if s.gaps == nil || !s.gaps.Live() {
		p.Catalogue = gapsCatalogue(r.Context(), pr, c)
		return render(r.Context(), w, http.StatusOK, templates.GapsView(p))
	}
	p.Live = true
	if err := s.requireTriageAccess(r); err != nil {
		return err
	}
	rep, err := s.gaps.Run(r.Context())
	if err != nil {
		s.log.Warn("gap checks could not read the cluster", "err", err)
		p.Error = pr.T("gaps.read_failed", "error", err.Error())
		p.Catalogue = gapsCatalogue(r.Context(), pr, c)
		return render(r.Context(), w, http.StatusOK, templates.GapsView(p))
	}
	fillGapsPage(pr, &p, rep)
	p.CachedFor = s.gaps.TTL().String()
	return render(r.Context(), w, http.StatusOK, templates.GapsView(p))
}

// handleGapsUpload checks an uploaded inventory file; it reads no cluster.
func (s *Server) handleGapsUpload(w http.ResponseWriter, r *http.Request) error {
	c, err := s.current(r)
	if err != nil {
		return err
	}
	if s.gaps == nil {
		return userError(http.StatusServiceUnavailable, "error.gaps_off")
	}
	// An inventory describes a cluster and costs memory and CPU to check:
	// behind a sign-in proxy, the same people as may read the cluster.
	if s.policy.Header != "" {
		if err := s.requireTriageAccess(r); err != nil {
			return err
		}
	}
	pr := printer(r.Context())
	p := templates.GapsPage{Chrome: s.chrome(c, pr.T("gaps.title"), "gaps", ""), Live: s.gaps.Live()}
	// The upload's cost is reserved by its size before it is read, so
	// concurrent uploads of one caller see each other, and at most
	// access.MaxRunning of them run at once; the time the file took to
	// parse and check is charged on top (before the answer goes out, so
	// the next request sees the debt). No file may cost more than
	// uploadBudget.
	done, err := s.limiter.Reserve(caller(r), s.limiter.UploadCost(r.ContentLength))
	if err != nil {
		return err
	}
	start := time.Now()
	charge := func() { done(access.CostOf(time.Since(start))) }
	defer charge() // on the error paths
	f, name, err := uploadedFile(r, "inventory")
	if err != nil {
		if tooLarge(err) {
			return userError(http.StatusRequestEntityTooLarge, "error.inventory_too_large", "mib", strconv.Itoa(uploadLimit>>20))
		}
		return badRequestMsg("error.inventory_missing")
	}
	ctx, cancel := context.WithTimeout(r.Context(), uploadBudget)
	defer cancel()
	rep, err := s.gaps.RunFile(ctx, name, f)
	if err != nil && !tooLarge(err) {
		// A file refused early may still be over the limit, which is
		// what its sender must hear: the rest is read (not kept) to tell.
		if _, rest := io.Copy(io.Discard, f); tooLarge(rest) {
			err = rest
		}
	}
	charge()
	if tooLarge(err) || errors.Is(err, inventory.ErrTooLarge) {
		return userError(http.StatusRequestEntityTooLarge, "error.inventory_too_large", "mib", strconv.Itoa(uploadLimit>>20))
	}
	if err != nil {
		p.Error = err.Error()
		p.Catalogue = gapsCatalogue(r.Context(), pr, c)
		return render(r.Context(), w, http.StatusUnprocessableEntity, templates.GapsView(p))
	}
	fillGapsPage(pr, &p, rep)
	return render(r.Context(), w, http.StatusOK, templates.GapsView(p))
}

// uploadedFile is the file of the multipart form field, read as it
// arrives: the form is not parsed whole first, so the file is never held in
// memory or copied to disk before its decoder reads it. The file's base
// name is returned beside.
func uploadedFile(r *http.Request, field string) (io.Reader, string, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, "", err
	}
	for {
		part, err := mr.NextPart()
		if err != nil {
			return nil, "", err
		}
		if part.FormName() == field && part.FileName() != "" {
			return part, path.Base(part.FileName()), nil
		}
	}
}

// fillGapsPage turns a report into the page's view model: findings and
// errors grouped by severity, worst first, passed checks listed apart.
func fillGapsPage(pr *i18n.Printer, p *templates.GapsPage, rep *gaps.Report) {
	p.Source, p.CollectedAt = rep.Source, pr.Time(rep.CollectedAt)
	if rep.Source == "cluster" {
		p.Source = pr.T("gaps.source_cluster")
	}
	if sc := rep.Scope; len(sc.Namespaces) > 0 || sc.NodeSelector != "" {
		all := pr.T("gaps.scope_all")
		ns, nodes := strings.Join(sc.Namespaces, ", "), sc.NodeSelector
		if ns == "" {
			ns = all
		}
		if nodes == "" {
			nodes = all
		}
		p.Scope = pr.T("gaps.scope", "namespaces", ns, "nodes", nodes)
	}
	for _, res := range rep.Results {
		if res.Status == gaps.StatusPassed {
			p.Passed = append(p.Passed, templates.Link{Label: pr.PickText(res.Title, res.TitleKo), Href: "#" + res.ID, Kind: res.ID})
			continue
		}
		if res.Status == gaps.StatusFound {
			p.Found++
		} else {
			p.Errors++
		}
		sev := res.Severity.String()
		if n := len(p.Groups); n == 0 || p.Groups[n-1].Severity != sev {
			p.Groups = append(p.Groups, templates.GapGroup{Severity: sev, Label: severityLabel(pr, sev)})
		}
		g := &p.Groups[len(p.Groups)-1]
		g.Results = append(g.Results, gapResult(pr, res))
	}
}

func gapResult(pr *i18n.Printer, res gaps.Result) templates.GapResult {
	title, fbT := pr.Pick(res.Title, res.TitleKo)
	fix, fbF := pr.Pick(res.Fix, res.FixKo)
	msg, fbM := res.Message, false
	if res.Message != "" {
		msg, fbM = pr.Pick(res.Message, res.MessageKo)
	}
	out := templates.GapResult{ID: res.ID, Title: title, Severity: res.Severity.String(), Status: string(res.Status),
		StatusLabel: statusLabel(pr, string(res.Status)), Message: msg, Error: res.Error, Partial: res.Partial, Fix: fix,
		More: res.Count - len(res.Objects), Source: "library/" + res.Path, EnglishOnly: fbT || fbF || fbM}
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

// severityLabel names a check's severity (critical, high, medium, low).
func severityLabel(p *i18n.Printer, sev string) string {
	switch sev {
	case "critical":
		return p.T("gaps.severity_critical")
	case "high":
		return p.T("gaps.severity_high")
	case "medium":
		return p.T("gaps.severity_medium")
	case "low":
		return p.T("gaps.severity_low")
	}
	return sev
}

// statusLabel names a result's status (found, error, passed).
func statusLabel(p *i18n.Printer, st string) string {
	switch st {
	case "found":
		return p.T("gaps.status_found")
	case "error":
		return p.T("gaps.status_error")
	case "passed":
		return p.T("gaps.status_passed")
	}
	return st
}
