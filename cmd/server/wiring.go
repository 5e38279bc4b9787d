package main

import (
	"net/http"
	"slices"

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
// or a reverse proxy on the same machine, requests reach the loopback
// address under the portal's public name, which the SDK's DNS-rebinding
// guard would refuse; the portal's host allow-list (unless turned off with
// "*") and the required identity header do that guard's job.
func mcpHandler(a *app) http.Handler {
	opts := mcp.Options{Version: version(), Log: a.log, Metrics: a.metrics, Live: a.live, Policy: a.policy, Limiter: a.limiter,
		Drills: a.drills}
	if a.gaps.Live() {
		opts.Gaps = a.gaps
	}
	s := mcp.NewServer(a.loader, opts)
	return mcp.Handler(s, mcp.HTTPOptions{BehindProxy: a.cfg.AuthHeader != "", HostsChecked: !slices.Contains(allowedHosts(a.cfg), "*")})
}
