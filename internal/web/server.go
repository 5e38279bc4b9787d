// Package web serves the portal: HTML pages, the JSON API, health and static
// files. Handlers parse the request, ask one dependency, build a view model
// and render; branching logic lives in pure functions beside them.
package web

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/a-h/templ"

	"casebook/internal/access"
	"casebook/internal/content"
	"casebook/internal/i18n"
	"casebook/internal/live"
	"casebook/web/static"
	"casebook/web/templates"
)

// ContentSource publishes the current library (nil before the first load)
// and whether the latest reload failed (nil when it did not), each as a
// reader sees it: with the restricted layers (--restrict-layer) only for
// readers allowed to see them. Handlers reach it only through
// Server.current, which makes that choice from the request's identity.
type ContentSource interface {
	CurrentFor(seesRestricted bool) *content.Content
	FailureFor(seesRestricted bool) *content.LoadFailure
}

// Deps are the server's dependencies, passed in explicitly by cmd/server.
type Deps struct {
	Content ContentSource
	Log     *slog.Logger
	Static  fs.FS // nil uses the embedded assets
	Version string
	Metrics Metrics // nil records nothing
	// Policy is who may use the portal and read the cluster through it;
	// Limiter the budget of expensive work per caller, shared with the
	// MCP tools (nil: a limiter of 60 a minute of its own).
	Policy  access.Policy
	Limiter *access.Limiter
	// Hosts are the host names the portal answers to (the DNS-rebinding
	// guard); PublicURL, when set, is its address for absolute links.
	Hosts     HostPolicy
	PublicURL *url.URL
	// Live is live triage; nil or not Enabled means no cluster is
	// configured, and the wizard asks instead.
	Live *live.Service
	// Extensions add routes owned by other features (triage, MCP, metrics).
	Extensions []func(r Router)
	// Gaps runs the gap checks for /gaps and lists an incident's checks;
	// nil leaves /gaps explaining how to run them from a terminal.
	Gaps Gaps
	// DefaultLang is the language of a request that names none (no ?lang,
	// no cookie, no Accept-Language the portal speaks); empty is English.
	DefaultLang i18n.Lang
	// Drills holds the library's drills for /drills; nil turns the pages
	// off with a 503.
	Drills Drills
	// Draining reports that the process is shutting down: /readyz then
	// answers 503 so a Service stops sending it requests while those in
	// flight finish. nil never drains.
	Draining func() bool
}

// Server holds what handlers share.
type Server struct {
	content   ContentSource
	log       *slog.Logger
	assets    *static.Assets
	version   string
	metrics   Metrics
	live      *live.Service
	policy    access.Policy
	limiter   *access.Limiter
	hosts     HostPolicy
	publicURL *url.URL
	gaps      Gaps
	drills    Drills
	// searchGraphs holds the graphs of recent search results.
	searchGraphs searchGraphs
	defaultLang  i18n.Lang
	draining     func() bool
}

// New returns the portal's handler.
func New(d Deps) http.Handler {
	fsys := d.Static
	if fsys == nil {
		fsys = static.FS
	}
	if d.Limiter == nil {
		d.Limiter = access.NewLimiter(0)
	}
	s := &Server{content: d.Content, log: d.Log, assets: static.NewAssets(fsys), version: d.Version, metrics: d.Metrics,
		policy: d.Policy, limiter: d.Limiter, live: d.Live, gaps: d.Gaps, hosts: d.Hosts, publicURL: d.PublicURL, drills: d.Drills,
		defaultLang: d.DefaultLang, draining: d.Draining}
	if s.draining == nil {
		s.draining = func() bool { return false }
	}
	if s.defaultLang == "" {
		s.defaultLang = i18n.EN
	}
	return s.routes(d.Extensions)
}

// current returns the loaded content as the caller of r may see it, or a
// 503 error. It is the one place a request's library is chosen: a caller
// not on the allow-list gets the library without the restricted layers, so
// every page, API answer, feed and export built from it lacks them.
func (s *Server) current(r *http.Request) (*content.Content, error) {
	if c, ok := r.Context().Value(pinnedKey{}).(*content.Content); ok {
		return c, nil
	}
	c := s.content.CurrentFor(s.seesRestricted(r))
	if c == nil {
		return nil, errUnavailable
	}
	return c, nil
}

// LibraryVersionHeader names the content hash of the library that answered
// a request (the hash /readyz shows), so replicas behind one Service can be
// compared and a stale one found.
const LibraryVersionHeader = "X-Library-Version"

// pinnedKey holds, in a request's context, the library chosen for it when
// it arrived: a reload during the request does not change the library it
// reads, nor make it answer from one version under another's name.
type pinnedKey struct{}

// pin chooses the request's library once and names it in the answer's
// LibraryVersionHeader.
func (s *Server) pin(w http.ResponseWriter, r *http.Request) *http.Request {
	c := s.content.CurrentFor(s.seesRestricted(r))
	if c == nil {
		return r
	}
	w.Header().Set(LibraryVersionHeader, c.Hash)
	return r.WithContext(context.WithValue(r.Context(), pinnedKey{}, c))
}

// seesRestricted reports whether the caller of r may read the restricted
// layers: an identity on the allow-list.
func (s *Server) seesRestricted(r *http.Request) bool {
	return s.policy.Allowed(identity(r.Context()))
}

func (s *Server) chrome(c *content.Content, title, nav, query string) templates.Chrome {
	ch := templates.Chrome{Title: title, Nav: nav, Asset: s.assets.URL, Query: query, Version: s.version}
	// The footer shows the failure's error only, the same in both views.
	if f := s.content.FailureFor(false); f != nil {
		ch.ReloadError, ch.ReloadFailedAt = f.Err, f.At
	}
	return ch
}

// render writes a page whole: it is rendered into a pooled buffer first,
// so the answer carries its length and leaves in a few writes instead of
// one chunk per 4 KiB (a tenth of the search page's CPU went to those
// writes), and a template error becomes an error page rather than half a
// page.
func render(ctx context.Context, w http.ResponseWriter, status int, comp templ.Component) error {
	b := pageBufs.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= maxPooledPage {
			b.Reset()
			pageBufs.Put(b)
		}
	}()
	b.Reset()
	if err := comp.Render(ctx, b); err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
	return nil
}

// maxPooledPage is the largest page buffer kept for reuse; a rare huge
// page does not pin its memory.
const maxPooledPage = 1 << 20

var pageBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}
