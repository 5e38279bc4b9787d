package web

import "time"

// Metrics receives the events the portal counts. cmd/server passes a
// Prometheus implementation; nil records nothing.
type Metrics interface {
	ObserveRequest(route, method string, code int, d time.Duration)
	TriageOutcome(route, via string)
	SearchLatency(seconds float64)
}
