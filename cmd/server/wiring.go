package main

import (
	"net/http"

	"casebook/internal/mcp"
	"casebook/internal/web"
)

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
	opts := mcp.Options{Version: version(), Log: a.log, Metrics: a.metrics, Live: a.live, Policy: a.policy, Limiter: a.limiter}
	if a.gaps.Live() {
		opts.Gaps = a.gaps
	}
	s := mcp.NewServer(a.loader, opts)
	return mcp.Handler(s, mcp.HTTPOptions{BehindProxy: a.cfg.AuthHeader != ""})
}
