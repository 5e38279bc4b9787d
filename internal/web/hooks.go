package web

import (
	"net/http"
	"time"

	"casebook/web/templates"
)

// Metrics receives the events the portal counts. cmd/server passes a
// Prometheus implementation; nil records nothing.
type Metrics interface {
	ObserveRequest(route, method string, code int, d time.Duration)
	TriageOutcome(route, via string)
	SearchLatency(seconds float64)
}

// clusterUI is the live-cluster part of the wizard; nil when no cluster is
// configured.
type clusterUI struct{}

func (c *clusterUI) form(r *http.Request) *templates.ClusterForm { return nil }
