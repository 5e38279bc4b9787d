package main

import (
	"context"
	"time"

	"casebook/internal/cluster"
	"casebook/internal/content"
	"casebook/internal/gaps"
	"casebook/internal/inventory"
)

// liveGaps is the gap service of "casebook mcp --live".
func liveGaps(r *cluster.Reader, loader *content.Loader) *gaps.Service {
	return gaps.NewService(gaps.ServiceOptions{
		Checks: currentChecks(loader, true),
		Collect: func(ctx context.Context) (*inventory.Inventory, error) {
			return r.Inventory(ctx, cluster.InventoryOptions{Timeout: 30 * time.Second})
		},
	})
}
