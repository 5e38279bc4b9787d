package main

import (
	"context"
	"log/slog"

	"casebook/internal/content"
	"casebook/internal/library"
	"casebook/internal/search"
	"casebook/internal/web"
)

// builders lists the read models built beside the SQLite store: the search
// index, persisted under the data folder per content hash.
func builders(dataDir string, log *slog.Logger) []content.Builder {
	return []content.Builder{{
		Name: "search",
		Build: func(ctx context.Context, lib func() (*library.Library, error), c *content.Content) (any, error) {
			l, err := lib()
			if err != nil {
				return nil, err
			}
			ix, err := search.Open(dataDir, l)
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
	}
}
