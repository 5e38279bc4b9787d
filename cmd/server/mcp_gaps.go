package main

import (
	"context"
	"net/http"
	"time"

	"casebook/internal/cluster"
	"casebook/internal/content"
	"casebook/internal/gaps"
	"casebook/internal/inventory"
	"casebook/internal/mcp"
)

// mcpGaps offers the gap checks to check_cluster_gaps, behind the same
// gate as live triage over /mcp (nil over stdio, where the user runs the
// process with their own kubeconfig).
type mcpGaps struct {
	svc  *gaps.Service
	gate func(mcp.PodRequest) error
}

func (g mcpGaps) CheckGaps(ctx context.Context, h http.Header) (*gaps.Report, error) {
	if g.gate != nil {
		if err := g.gate(mcp.PodRequest{Header: h}); err != nil {
			return nil, err
		}
	}
	return g.svc.Run(ctx)
}

// portalGaps is check_cluster_gaps on the portal's /mcp: the portal's own
// gap service (and cache), when a cluster is configured.
func portalGaps(a *app) mcp.GapChecker {
	if a.gaps == nil || !a.gaps.Live() {
		return nil
	}
	return mcpGaps{svc: a.gaps, gate: portalGate(a.cfg, time.Now)}
}

// liveGaps is the gap service of "casebook mcp --live".
func liveGaps(r *cluster.Reader, loader *content.Loader) *gaps.Service {
	return gaps.NewService(gaps.ServiceOptions{
		Checks: currentChecks(loader),
		Collect: func(ctx context.Context) (*inventory.Inventory, error) {
			return r.Inventory(ctx, cluster.InventoryOptions{Timeout: 30 * time.Second})
		},
	})
}
