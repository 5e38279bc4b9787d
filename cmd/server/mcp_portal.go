package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"casebook/internal/cluster"
	"casebook/internal/mcp"
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
	users, domains := lower(splitList(cfg.AllowUsers)), lower(splitList(cfg.AllowDomains))
	perMin := cfg.RateLimit
	if perMin <= 0 {
		perMin = 60
	}
	var mu sync.Mutex
	limits := map[string]*rate.Limiter{}
	return func(req mcp.PodRequest) error {
		id := ""
		if cfg.AuthHeader != "" {
			id = strings.ToLower(strings.TrimSpace(req.Header.Get(cfg.AuthHeader)))
			if !allowListed(id, users, domains) {
				return errors.New("live triage is limited to allow-listed users")
			}
		}
		mu.Lock()
		defer mu.Unlock()
		l, ok := limits[id]
		if !ok {
			if len(limits) > 10000 { // a bounded map: forget everyone rather than grow
				clear(limits)
			}
			l = rate.NewLimiter(rate.Limit(float64(perMin)/60), max(1, perMin/6))
			limits[id] = l
		}
		if !l.AllowN(now(), 1) {
			return fmt.Errorf("too many live triages; at most %d a minute", perMin)
		}
		return nil
	}
}

// allowListed is the portal's rule: an identity is required, and with no
// lists any identity will do.
func allowListed(id string, users, domains []string) bool {
	if id == "" {
		return false
	}
	if len(users) == 0 && len(domains) == 0 {
		return true
	}
	for _, u := range users {
		if u == id {
			return true
		}
	}
	if at := strings.LastIndexByte(id, '@'); at >= 0 {
		for _, d := range domains {
			if strings.TrimPrefix(d, "@") == id[at+1:] {
				return true
			}
		}
	}
	return false
}

func lower(list []string) []string {
	for i, s := range list {
		list[i] = strings.ToLower(s)
	}
	return list
}
