package main

import (
	"casebook/internal/content"
	"casebook/internal/web"
)

// builders lists the read models built beside the SQLite store.
func builders() []content.Builder {
	return nil
}

// extensions lists the route groups of features beyond the library pages.
func extensions(a *app) []func(web.Router) {
	return []func(web.Router){
		func(r web.Router) { r.Handle("/metrics", a.metrics.Handler()) },
	}
}
