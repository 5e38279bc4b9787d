package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"casebook/internal/cluster"
	"casebook/internal/mcp"
	"casebook/internal/web"
)

// portalPods is triage_pod for /mcp: on only when serve has live triage on
// (--kubeconfig or --in-cluster), reading through a reader with the same
// options as the wizard's, so the namespace allow-list is the same.
// clusterConfig has already logged why, if the client cannot be built.
func portalPods(a *app) mcp.PodTriager {
	cfg := a.cfg
	if cfg.Kubeconfig == "" && !cfg.InCluster {
		return nil
	}
	r, err := cluster.Connect(clusterOptions(cfg))
	if err != nil {
		return nil
	}
	return livePods{cluster: r, src: a.loader, gate: portalGate(cfg, time.Now)}
}

// portalGate applies the wizard's rules for reading the cluster to an MCP
// call: with --auth-header, only identities on --allow-users or
// --allow-domains (any identity when both are empty), and at most
// --rate-limit live triages per identity per minute. The identity header
// was already required for reaching /mcp at all.
func portalGate(cfg config, now func() time.Time) func(mcp.PodRequest) error {
	access := web.Access{Header: cfg.AuthHeader, Users: splitList(cfg.AllowUsers), Domains: splitList(cfg.AllowDomains)}
	limiter := web.NewLimiter(cfg.RateLimit)
	return func(req mcp.PodRequest) error {
		id := ""
		if cfg.AuthHeader != "" {
			id = strings.TrimSpace(req.Header.Get(cfg.AuthHeader))
			if id == "" || !access.Allowed(id) {
				return errors.New("live triage is limited to allow-listed users")
			}
		}
		if !limiter.Allow("id:"+strings.ToLower(id), now()) {
			return fmt.Errorf("too many live triages; at most %d a minute", limiter.PerMinute())
		}
		return nil
	}
}
