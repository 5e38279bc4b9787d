package web

import (
	"casebook/internal/content"
	"casebook/internal/i18n"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// Router is what feature extensions receive to add their routes.
type Router = chi.Router

// routes lists every URL of the portal in one place.
func (s *Server) routes(ext []func(Router)) http.Handler {
	r := chi.NewRouter()
	// HEAD is answered wherever GET is (link checkers and chat unfurlers
	// ask with HEAD first); net/http drops the body.
	r.Use(middleware.GetHead, withRequestID, withRecover(s.log), withSecurityHeaders, withLogging(s.log, s.metrics), s.withAllowedHosts, s.withLang,
		withMaxBody(2<<20), s.withAccess, http.NewCrossOriginProtection().Handler)

	r.Get("/healthz", s.handleHealthz)
	r.Get("/readyz", s.handleReadyz)
	r.Handle("/static/*", s.staticHandler())

	r.Get("/", s.adapt(s.handleLibrary))
	r.Get("/incidents", s.adapt(s.handleLibrary))
	r.Get("/incidents/{id}", s.adapt(s.handleIncident))
	r.Get("/causes", s.adapt(s.handleCauses))
	r.Get("/playbooks", s.adapt(s.handlePlaybooks))
	r.Get("/playbooks/{id}", s.adapt(s.handlePlaybook))
	r.Get("/terms", s.adapt(s.handleTerms))
	r.Get("/terms/{facet}/{id}", s.adapt(s.handleTerm))
	r.Get("/graph", s.adapt(s.handleGraphPage))
	r.Get("/trends", s.adapt(s.handleTrends))
	r.Get("/feed.atom", s.adapt(s.handleFeed))
	r.Get("/search", s.adapt(s.handleSearch))
	r.Get("/triage", s.adapt(s.handleTriage))
	r.Post("/triage", s.adapt(s.rateLimited(s.handleTriagePaste)))
	r.Get("/triage/paste", s.adapt(s.rateLimited(s.handleTriagePasteLink)))
	r.Get("/triage/writeup", s.adapt(s.handleWriteup))
	r.Get("/gaps", s.adapt(s.rateLimited(s.handleGaps)))
	r.Post("/gaps", s.adapt(s.handleGapsUpload)) // reserves its own cost by size
	r.Get("/drills", s.adapt(s.handleDrills))
	r.Get("/drills/{id}", s.adapt(s.handleDrill))
	r.Get("/drills/{id}/brief", s.adapt(s.handleDrillBrief))
	r.Get("/drills/{id}/debrief", s.adapt(s.handleDrillDebrief))
	// Live triage: the live service applies the policy and the limiter.
	r.Get("/triage/cluster", s.adapt(s.handleClusterTriage))
	r.Get("/triage/cluster/snapshot.json", s.adapt(s.handleSnapshotDownload))
	r.Post("/triage/snapshot", s.adapt(s.rateLimited(s.handleSnapshotUpload)))

	r.Route("/api", func(r chi.Router) {
		r.Get("/incidents", s.adapt(s.handleAPIIncidents))
		r.Get("/incidents/{id}", s.adapt(s.handleAPIIncident))
		r.Get("/playbooks", s.adapt(s.handleAPIPlaybooks))
		r.Get("/playbooks/{id}", s.adapt(s.handleAPIPlaybook))
		r.Get("/taxonomy", s.adapt(s.handleAPITaxonomy))
		r.Get("/graph", s.adapt(s.handleAPIGraph))
		r.Get("/trends", s.adapt(s.handleAPITrends))
		r.Get("/trends/{chart}", s.adapt(s.handleAPITrends))
		r.Get("/problems", s.adapt(s.handleAPIProblems))
		r.Get("/search", s.adapt(s.handleAPISearch))
		r.Post("/triage/classify", s.adapt(s.rateLimited(s.handleAPIClassify)))
		r.Get("/triage/trees", s.adapt(s.handleAPITrees))
		r.Get("/triage/trees/{id}", s.adapt(s.handleAPITree))
		r.Get("/export.json", s.adapt(s.handleAPIExportJSON))
		r.Get("/export.csv", s.adapt(s.handleAPIExportCSV))
	})
	for _, e := range ext {
		e(r)
	}
	r.NotFound(s.adapt(func(w http.ResponseWriter, req *http.Request) error {
		if redirectCanonical(r, w, req) {
			return nil
		}
		return notFoundMsg(i18n.M("notfound.page", "path", req.URL.Path))
	}))
	r.MethodNotAllowed(s.adapt(func(w http.ResponseWriter, r *http.Request) error {
		return userError(http.StatusMethodNotAllowed, "error.method", "method", r.Method, "path", r.URL.Path)
	}))
	return r
}

func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// handleReadyz is 200 once a library is loaded. A failed reload keeps the
// previous library published, so it stays ready, and says so: the error and
// since when, for the operator who checks the pod.
//
// Probes come without an identity, so they see the library without the
// restricted layers: its hash and counts.
//
// Once the process is shutting down it answers 503 "draining", still naming
// the library, while the requests in flight finish.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	c := s.content.CurrentFor(false)
	if c == nil {
		http.Error(w, "library not loaded", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set(LibraryVersionHeader, c.Hash)
	status, code := "ready", http.StatusOK
	if s.draining() {
		status, code = "draining", http.StatusServiceUnavailable
	}
	out := map[string]any{"status": status, "hash": c.Hash, "incidents": c.Incidents,
		"playbooks": c.Playbooks, "problems": len(c.Problems), "loaded_at": c.LoadedAt}
	if f := s.content.FailureFor(false); f != nil {
		out["reload"] = reloadJSON(f, c.Roots)
	}
	writeJSON(w, code, out)
}

// reloadJSON describes a failing reload in /readyz and /api/problems.
// Problems show paths inside their layers (roots: Content.Roots).
func reloadJSON(f *content.LoadFailure, roots map[string]string) map[string]any {
	problems := []string{}
	for _, p := range f.Problems {
		p.Path = p.InLayer(roots)
		problems = append(problems, p.String())
	}
	return map[string]any{"status": "failing", "error": f.Err, "failed_at": f.At, "failing_since": f.Since, "problems": problems}
}

func (s *Server) staticHandler() http.Handler {
	fsrv := http.StripPrefix("/static/", http.FileServerFS(s.assets.FS()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") != "" {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "public, max-age=300")
		}
		// Directory listings are not part of the site.
		if len(r.URL.Path) > 0 && r.URL.Path[len(r.URL.Path)-1] == '/' {
			http.NotFound(w, r)
			return
		}
		fsrv.ServeHTTP(w, r)
	})
}
