package web

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"casebook/internal/content"
	"casebook/internal/probe"
	"casebook/internal/snapshot"
	"casebook/internal/triage"
	"casebook/web/templates"
)

// clusterForm is the live-triage part of the wizard's start page.
func (s *Server) clusterForm(r *http.Request) *templates.ClusterForm {
	f := &templates.ClusterForm{Enabled: s.live.Enabled(), Namespaces: s.live.Namespaces(), Namespace: r.URL.Query().Get("namespace")}
	switch {
	case !f.Enabled:
		f.Message = printer(r.Context()).Msg(s.live.Off())
	case len(f.Namespaces) > 0:
		f.Message = printer(r.Context()).T("triage.cluster_namespaces", "list", strings.Join(f.Namespaces, ", "))
	}
	return f
}

// clusterParams reads the namespace and target of a live triage; the
// service validates them.
func clusterParams(q url.Values) (ns, target string) {
	return strings.TrimSpace(q.Get("namespace")), strings.TrimSpace(q.Get("pod"))
}

// degrades reports whether a failed read should turn into questions for
// the person rather than an error page: the cluster refused or could not
// be reached, which says nothing about the pod.
func degrades(err error) bool {
	return errors.Is(err, snapshot.ErrUnavailable) || errors.Is(err, snapshot.ErrForbidden)
}

// handleClusterTriage reads a pod from the cluster and shows the wizard with
// every question the cluster could answer answered, with its evidence. The
// URL carries only the person's own answers (a= and ask=), so each step
// re-reads the cluster and the evidence stays current.
func (s *Server) handleClusterTriage(w http.ResponseWriter, r *http.Request) error {
	c, cat, err := s.currentTriage(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	ns, target := clusterParams(q)
	if target == "" {
		return s.renderScan(w, r, c, cat, ns)
	}
	st, err := triage.ParseState(cat.Root().ID, q.Get("a"))
	if err != nil {
		return badRequestOf(err)
	}
	snap, err := s.live.Collect(r.Context(), caller(r), ns, target)
	if err != nil {
		if !degrades(err) {
			return err
		}
		// A dead, slow or refusing cluster must not stop the triage: say
		// what could not be read and ask the questions instead.
		walk, werr := cat.Walk(st, triage.Hints{})
		if werr != nil {
			return badRequestOf(werr)
		}
		p, perr := s.walkPage(r, c, cat, walk, contextOf(q), []string{"Could not read the cluster (" + err.Error() + "); answer the questions yourself."})
		if perr != nil {
			return perr
		}
		return render(r.Context(), w, http.StatusOK, templates.TriageView(p))
	}
	base := url.Values{"namespace": {ns}, "pod": {target}}
	p, err := s.probedWalkPage(r, c, cat, snap, st, q.Get("ask"), func(next triage.State, ask string) string {
		v := url.Values{"namespace": base["namespace"], "pod": base["pod"]}
		if a := next.Encode(); a != "" {
			v.Set("a", a)
		}
		if ask != "" {
			v.Set("ask", ask)
		}
		return "/triage/cluster?" + v.Encode()
	})
	if err != nil {
		return err
	}
	p.SnapshotHref = "/triage/cluster/snapshot.json?" + base.Encode()
	return render(r.Context(), w, http.StatusOK, templates.TriageView(p))
}

// askOverride hides one probe so the person can override its answer.
type askOverride struct {
	p    triage.Prober
	skip string
}

func (a askOverride) Probe(name string) triage.Answer {
	if name == a.skip {
		return triage.Answer{}
	}
	return a.p.Probe(name)
}

// probedWalkPage walks with the snapshot answering what it can. link builds
// the URL of a next state (person answers only) and of an override.
func (s *Server) probedWalkPage(r *http.Request, c *content.Content, cat *triage.Catalog, snap *snapshot.Snapshot, st triage.State, ask string,
	link func(next triage.State, ask string) string) (templates.TriagePage, error) {
	pr := printer(r.Context())
	prober := probe.NewProber(snap, cat)
	prober.Printer = pr
	var hints triage.Prober = prober
	if ask != "" {
		if n, ok := cat.Node(ask); ok && n.Probe != "" {
			hints = askOverride{p: prober, skip: n.Probe}
		}
	}
	walk, err := cat.Walk(st, triage.Hints{Cluster: hints})
	if err != nil {
		var se *triage.StateError
		if errors.As(err, &se) {
			return templates.TriagePage{}, badRequestOf(err)
		}
		return templates.TriagePage{}, err
	}
	var notices []string
	for _, e := range snap.ReadErrors {
		notices = append(notices, pr.T("triage.cluster_read_asked", "what", e.What, "kind", e.Kind, "permission", e.Permission))
	}
	p, err := s.walkPage(r, c, cat, walk, snapshotContext(snap), notices)
	if err != nil {
		return p, err
	}
	p.Chrome.Title = pr.T("triage.title_tree", "tree", snap.Target.String())
	p.TreeTitle = pr.T("triage.live_heading", "target", snap.Target.String())
	// Rebuild the links: keep only the person's own answers so probes
	// answer afresh on the next page.
	person := triage.State{Tree: st.Tree}
	for i, step := range walk.Steps {
		before := person
		if step.Source == triage.SourcePerson {
			person.Answers = append(person.Answers, triage.Given{Question: step.Node.ID, Choice: step.Choice.ID})
		}
		p.Crumbs[i].ChangeHref = link(before, step.Node.ID)
	}
	p.BackHref, p.RestartHref = "", "/triage"
	if p.Question != nil {
		for i, ch := range walk.Node.Choices {
			p.Question.Answers[i].Href = link(person.With(walk.Node.ID, ch.ID), "")
		}
		p.Question.UnsureHref = link(person, "") + "&unsure=1#question"
		if walk.Node.Probe != "" {
			if a := prober.Probe(walk.Node.Probe); !a.Known && a.Note != "" {
				note := a.Note
				if !a.NoteMsg.IsZero() {
					note = pr.Msg(a.NoteMsg)
				}
				p.Question.Unknown = pr.T("triage.cluster_unknown", "note", note)
			}
		}
	}
	if p.Outcome != nil {
		p.Outcome.Specifics = specificsView(printer(r.Context()), probe.Specifics(snap).For(p.Outcome.Route))
	}
	if p.Outcome != nil && s.metrics != nil {
		s.metrics.TriageOutcome(p.Outcome.Route, "cluster")
	}
	return p, nil
}

// renderScan lists the troubled pods of a namespace with where each lands.
func (s *Server) renderScan(w http.ResponseWriter, r *http.Request, c *content.Content, cat *triage.Catalog, ns string) error {
	sc, err := s.live.Scan(r.Context(), caller(r), ns)
	if err != nil {
		return err
	}
	pr := printer(r.Context())
	p := templates.TriagePage{Chrome: s.chrome(c, pr.T("triage.scan_title", "namespace", ns), "triage", ""), TreeTitle: pr.T("triage.scan_heading", "namespace", ns), RestartHref: "/triage"}
	for _, e := range sc.ReadErrors {
		p.Notices = append(p.Notices, pr.T("triage.cluster_read_failed", "what", e.What, "kind", e.Kind, "permission", e.Permission))
	}
	if sc.Truncated {
		p.Notices = append(p.Notices, pr.T("triage.cluster_truncated"))
	}
	for i := range sc.Snapshots {
		rep, err := probe.Triage(cat, &sc.Snapshots[i])
		if err != nil {
			return err
		}
		row := templates.ScanRow{Target: rep.Target.String(), Route: rep.Route, Diagnosis: rep.Diagnosis}
		if param := targetParam(rep.Target); param != "" {
			row.Href = "/triage/cluster?" + url.Values{"namespace": {ns}, "pod": {param}}.Encode()
		}
		if rep.Ask != nil {
			row.Diagnosis = pr.T("triage.scan_ask", "question", rep.Ask.Text)
		}
		p.Scan = append(p.Scan, row)
	}
	if len(p.Scan) == 0 {
		p.Notices = append(p.Notices, pr.T("triage.cluster_none", "namespace", ns))
	}
	return render(r.Context(), w, http.StatusOK, templates.TriageView(p))
}

// targetParam is how a scan's row is triaged on its own, "" for what
// triage takes no target of (a webhook configuration).
func targetParam(t snapshot.Target) string {
	switch {
	case t.Kind == "" || t.Kind == "Pod":
		return t.Name
	case t.Kind == "HorizontalPodAutoscaler":
		return "hpa/" + t.Name
	case t.Kind == "PersistentVolumeClaim":
		return "pvc/" + t.Name
	case strings.HasSuffix(t.Kind, "WebhookConfiguration"):
		return ""
	}
	return strings.ToLower(t.Kind) + "/" + t.Name
}

// handleSnapshotDownload returns what the cluster read for a pod as JSON, so
// it can be triaged later or elsewhere (casebook triage --snapshot, or the
// upload on /triage).
func (s *Server) handleSnapshotDownload(w http.ResponseWriter, r *http.Request) error {
	ns, target := clusterParams(r.URL.Query())
	var v any
	name := ns
	if target == "" {
		sc, err := s.live.Scan(r.Context(), caller(r), ns)
		if err != nil {
			return err
		}
		v = sc
	} else {
		snap, err := s.live.Collect(r.Context(), caller(r), ns, target)
		if err != nil {
			return err
		}
		v, name = snap, ns+"-"+strings.ReplaceAll(target, "/", "-")
	}
	var buf bytes.Buffer
	if err := snapshot.Encode(&buf, v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Disposition", `attachment; filename="casebook-snapshot-`+name+`.json"`)
	_, err := w.Write(buf.Bytes())
	return err
}

// handleSnapshotUpload triages an uploaded snapshot file: the air-gapped
// path. A malformed file is a 400 that says what is wrong with it.
func (s *Server) handleSnapshotUpload(w http.ResponseWriter, r *http.Request) error {
	c, cat, err := s.currentTriage(r)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, 16<<20)
	charge := s.charger(r)
	defer charge() // on the error paths; the answer below charges first
	var data io.Reader
	if ct := r.Header.Get("Content-Type"); strings.HasPrefix(ct, "multipart/form-data") {
		f, _, err := r.FormFile("snapshot")
		if err != nil {
			if tooLarge(err) {
				return userError(http.StatusRequestEntityTooLarge, "error.snapshot_too_large")
			}
			return badRequestMsg("error.snapshot_missing", "detail", err.Error())
		}
		defer f.Close()
		data = f
	} else {
		data = r.Body
	}
	snaps, err := snapshot.Decode(data)
	if err != nil {
		if tooLarge(err) {
			return userError(http.StatusRequestEntityTooLarge, "error.snapshot_too_large")
		}
		return badRequestMsg("error.snapshot_invalid", "detail", err.Error())
	}
	if len(snaps) == 0 {
		return badRequestMsg("error.snapshot_empty")
	}
	charge()
	if wantsJSON(r) {
		var reps []*probe.Report
		for i := range snaps {
			rep, err := probe.Triage(cat, &snaps[i])
			if err != nil {
				return err
			}
			reps = append(reps, rep)
		}
		writeJSON(w, http.StatusOK, map[string]any{"reports": reps})
		return nil
	}
	// The page shows the first pod; the questions left are answered in the
	// ordinary wizard, carrying what the snapshot showed as inferred answers.
	root := cat.Root()
	p, err := s.probedWalkPage(r, c, cat, &snaps[0], triage.State{Tree: root.ID}, "", func(next triage.State, ask string) string {
		return triageHref(next)
	})
	if err != nil {
		return err
	}
	if walk, err := cat.Walk(triage.State{Tree: root.ID}, triage.Hints{Cluster: probe.NewProber(&snaps[0], cat)}); err == nil && p.Question != nil {
		for i, ch := range walk.Node.Choices {
			p.Question.Answers[i].Href = triageHref(walk.State().With(walk.Node.ID, ch.ID))
		}
		p.Question.UnsureHref = triageHref(walk.State()) + "&unsure=1#question"
	}
	if len(snaps) > 1 {
		p.Notices = append(p.Notices, printer(r.Context()).T("triage.snapshot_many", "count", len(snaps)))
	}
	return render(r.Context(), w, http.StatusOK, templates.TriageView(p))
}

// snapshotContext is the pod, namespace, node and container a live read
// found, which fill the commands as a paste's do: the pod as the cluster
// names it, the node it runs on, and its container when it has only one.
func snapshotContext(snap *snapshot.Snapshot) *triage.Context {
	pod, node, container := "", "", ""
	if p := snap.Pod; p != nil {
		pod, node = p.Name, p.NodeName
		if len(p.Containers) == 1 {
			container = p.Containers[0].Name
		}
	} else if snap.Target.Kind == "Pod" {
		pod = snap.Target.Name
	}
	return triage.NewContext(pod, snap.Target.Namespace, node, container)
}
