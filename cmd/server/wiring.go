package main

import (
	"context"
	"log/slog"
	"net/http"

	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/mcp"
	"casebook/internal/search"
	"casebook/internal/web"
)

// builders lists the read models built beside the SQLite store: the search
// index, persisted under the data folder per content hash.
func builders(dataDir string, log *slog.Logger, opt search.Options) []content.Builder {
	return []content.Builder{{
		Name: "search",
		Build: func(ctx context.Context, lib func() (*library.Library, error), c *content.Content) (any, error) {
			l, err := lib()
			if err != nil {
				return nil, err
			}
			ix, err := search.OpenWith(dataDir, l, opt)
			if err != nil {
				return nil, err
			}
			// Indexes of older content are dead weight; open ones stay
			// readable until closed, so requests in flight finish.
			if err := ix.RemoveStale(); err != nil {
				log.Warn("could not remove old search indexes", "err", err)
			}
			info := ix.Info()
			log.Info("search index ready", "reused", info.Reused, "docs", info.Docs, "took", info.Took)
			if info.Rejected != nil {
				log.Warn("search index was damaged and has been rebuilt", "err", info.Rejected)
			}
			return ix, nil
		},
		Close: func(v any) { _ = v.(*search.Index).Close() },
	}}
}

// extensions lists the route groups of features beyond the library pages.
func extensions(a *app) []func(web.Router) {
	return []func(web.Router){
		func(r web.Router) { r.Handle("/metrics", a.metrics.Handler()) },
		// The MCP tools, inside the router so the portal's access rules
		// (identity header, allow-list, body limit, CSRF) apply to them too.
		func(r web.Router) { r.Handle("/mcp", mcpHandler(a)) },
	}
}

// mcpHandler serves the tools over streamable HTTP. Behind a sign-in proxy
// requests reach the loopback address under the portal's public name, which
// the SDK's DNS-rebinding guard would refuse; the required identity header
// does that guard's job there.
func mcpHandler(a *app) http.Handler {
	s := mcp.NewServer(a.loader, mcp.Options{Version: version(), Log: a.log, Metrics: a.metrics, Pods: portalPods(a),
		Gaps: portalGaps(a)})
	return mcp.Handler(s, mcp.HTTPOptions{BehindProxy: a.cfg.AuthHeader != ""})
}
