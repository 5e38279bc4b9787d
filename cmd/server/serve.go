package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"sync/atomic"
	"time"

	"casebook/internal/access"
	"casebook/internal/content"
	"casebook/internal/drill"
	"casebook/internal/live"
	"casebook/internal/metrics"
	"casebook/internal/search"
	"casebook/internal/web"
)

func newLogger(c config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(c.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if c.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// app is the wired server: built by newApp, run by serve. Tests build it on
// port 0 through the same path.
type app struct {
	cfg     config
	log     *slog.Logger
	loader  *content.Loader
	metrics *metrics.Metrics
	fsys    fs.FS
	http    *http.Server
	policy  access.Policy
	limiter *access.Limiter
	live    *live.Service
	gaps    viewGaps
	drills  *drill.Service
	// draining is set on SIGTERM: /readyz answers 503 from then on.
	draining atomic.Bool
}

func newApp(ctx context.Context, cfg config, stderr io.Writer) (*app, error) {
	log := newLogger(cfg, stderr)
	stack, err := libraryStack(cfg)
	if err != nil {
		return nil, err
	}
	m := metrics.New()
	loader := content.NewStackLoader(stack, cfg.Data, log)
	loader.Memory = newGCPolicy()
	if err := loader.Restrict(cfg.RestrictLayers); err != nil {
		return nil, fmt.Errorf("--restrict-layer: %w", err)
	}
	// As many searches run at once as there are cores; the rest wait their
	// turn (search.Options.Turns).
	loader.Search = search.Options{CacheBytes: int64(cfg.SearchCacheMB) << 20, OnCache: m.SearchCache, Turns: make(chan struct{}, runtime.GOMAXPROCS(0))}
	loader.OnLoad = m.LibraryLoad
	a := &app{cfg: cfg, log: log, loader: loader, metrics: m,
		policy:  access.Policy{Header: cfg.AuthHeader, Users: splitList(cfg.AllowUsers), Domains: splitList(cfg.AllowDomains), RestrictReads: cfg.RestrictReads},
		limiter: access.NewLimiter(cfg.RateLimit)}
	// The cluster is connected once; live triage and the gap checks read
	// through the same reader, with the same namespace allow-list.
	reader, off := connectCluster(cfg, log)
	a.live = liveService(cfg, reader, off, a.policy, a.limiter, m)
	a.gaps = portalGaps(loader, reader, a.policy)
	// Drills come from the bottom (public) layer; a team's drills are linted
	// with the rest of its layer but not yet served.
	a.drills = drill.NewService(stack.Layers()[0].FS, contentVersion(loader))
	publicURL, _ := web.ParsePublicURL(cfg.PublicURL) // checked with the flags
	proxies, _ := web.ParseProxies(cfg.TrustedProxies)
	var staticFS fs.FS
	if cfg.Dev {
		staticFS = os.DirFS("web/static")
	}
	handler := web.New(web.Deps{Content: loader, Log: log, Static: staticFS, Version: version(), Metrics: m, Extensions: extensions(a),
		Policy: a.policy, Limiter: a.limiter, Live: a.live, Gaps: a.gaps, DefaultLang: cfg.DefaultLang, Drills: a.drills,
		Hosts:     web.HostPolicy{Names: allowedHosts(cfg), Flag: "--allowed-hosts (CASEBOOK_ALLOWED_HOSTS)", Proxies: proxies},
		PublicURL: publicURL,
		Draining:  a.draining.Load})
	a.http = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	return a, nil
}

// runServe runs the portal until ctx is cancelled (SIGINT/SIGTERM).
func runServe(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseServeConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	// The process-wide limit is set here, not in newApp, so tests that
	// build several apps in one process leave the runtime alone.
	a.metrics.MemoryLimit(configureMemory(cfg.MemoryLimit, getenv, a.log))
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	return a.serve(ctx, ln)
}

// serve loads the library, then serves on ln until ctx ends. The listener
// opens before the load so /healthz answers (and /readyz says 503) while a
// large library is indexed.
func (a *app) serve(ctx context.Context, ln net.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- a.http.Serve(ln) }()
	v := content.DataVersions()
	a.log.Info("casebook listening", "addr", "http://"+ln.Addr().String(), "data", a.cfg.Data, "library", libraryName(a.cfg),
		"read_model_version", v["read_model"], "index_version", v["index"], "snapshot_version", v["snapshot"])
	// Watching starts before the load, so a change written during it (or
	// the moment the server turns ready) is not missed.
	wctx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	watchLayers(wctx, a.cfg.Data, a.loader, a.log)
	if _, err := a.loader.Load(ctx); err != nil {
		a.http.Close()
		return fmt.Errorf("no valid library to serve: %w", err)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.drain()
	a.log.Info("shutting down", "timeout", a.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
	defer cancel()
	err := a.http.Shutdown(sctx)
	a.loader.Close()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// drain turns the replica unready and keeps serving for --shutdown-delay
// before the listener closes. A Service learns that a pod is terminating
// (or unready) a moment after the pod does: requests routed to it in that
// moment would otherwise find the port closed. Keep-alives end, so clients
// holding a connection open to this replica make their next request on a
// new one, which the Service sends elsewhere.
func (a *app) drain() {
	a.draining.Store(true)
	if a.cfg.ShutdownDelay <= 0 {
		return
	}
	a.log.Info("draining: /readyz answers 503", "delay", a.cfg.ShutdownDelay)
	a.http.SetKeepAlivesEnabled(false)
	time.Sleep(a.cfg.ShutdownDelay)
}

// version is set at build time with -ldflags "-X main.buildVersion=…".
var buildVersion = "dev"

func version() string { return buildVersion }

// contentVersion names the loaded library's content, so services that
// read the library themselves reload when it changes.
func contentVersion(loader *content.Loader) func() string {
	return func() string {
		if c := loader.Current(); c != nil {
			return c.Hash
		}
		return ""
	}
}
