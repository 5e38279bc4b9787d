// Package metrics exposes Casebook's Prometheus metrics. It owns its
// registry (no global state), so tests and several servers in one process
// don't collide.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics holds every collector.
type Metrics struct {
	reg            *prometheus.Registry
	requests       *prometheus.CounterVec
	requestSeconds *prometheus.HistogramVec
	searchSeconds  prometheus.Histogram
	loadSeconds    prometheus.Histogram
	loadErrors     prometheus.Counter
	loadProblems   prometheus.Gauge
	loadFailing    prometheus.Gauge
	triage         *prometheus.CounterVec
	clusterErrors  *prometheus.CounterVec
	searchCache    *prometheus.CounterVec
	memoryLimit    prometheus.Gauge
}

// New registers the collectors, plus the Go runtime and process ones.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "casebook_http_requests_total", Help: "HTTP requests by route pattern, method and status code.",
	}, []string{"route", "method", "code"})
	m.requestSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "casebook_http_request_duration_seconds", Help: "HTTP request latency by route pattern.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	}, []string{"route", "method"})
	m.searchSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "casebook_search_duration_seconds", Help: "Search query latency inside the server.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25},
	})
	m.loadSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "casebook_library_load_duration_seconds", Help: "Time to load the library (parse, read model, index).",
		Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
	})
	m.loadErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "casebook_library_load_errors_total", Help: "Library loads that failed (the previous library kept serving).",
	})
	m.loadProblems = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "casebook_library_problems", Help: "Content problems reported by the last successful load.",
	})
	m.loadFailing = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "casebook_library_reload_failing", Help: "1 while the latest library load failed and the previous library is served, else 0.",
	})
	m.triage = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "casebook_triage_outcomes_total", Help: "Triage results by route and how they were reached (classify, wizard, cluster).",
	}, []string{"route", "via"})
	m.clusterErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "casebook_cluster_read_errors_total", Help: "Failed cluster reads by kind (forbidden, timeout, unavailable, notfound, other).",
	}, []string{"kind"})
	m.searchCache = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "casebook_search_cache_lookups_total",
		Help: "Search result cache lookups by result (hit, miss); the hit ratio is hit / (hit + miss).",
	}, []string{"result"})
	m.memoryLimit = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "casebook_memory_limit_bytes",
		Help: "The Go soft memory limit in force (--memory-limit, 80% of the container's limit, or GOMEMLIMIT), in bytes; 0 when there is none.",
	})
	m.reg.MustRegister(m.requests, m.requestSeconds, m.searchSeconds, m.loadSeconds, m.loadErrors, m.loadProblems, m.loadFailing, m.triage, m.clusterErrors, m.searchCache,
		m.memoryLimit,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveRequest records one HTTP request. Every label is bounded whatever
// a client sends: route is the router's pattern ("/incidents/{id}"), never
// the raw path ("unmatched" when no route matched); a method outside the
// standard set is "other"; the code is the one the server answered.
func (m *Metrics) ObserveRequest(route, method string, code int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	method = Method(method)
	m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.requestSeconds.WithLabelValues(route, method).Observe(d.Seconds())
}

// Method is the method label: one of the methods of RFC 9110 and PATCH,
// else "other", so made-up verbs cannot add series.
func Method(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// SearchLatency records one search.
func (m *Metrics) SearchLatency(seconds float64) { m.searchSeconds.Observe(seconds) }

// SearchCache counts one lookup in the search result cache.
func (m *Metrics) SearchCache(hit bool) {
	if hit {
		m.searchCache.WithLabelValues("hit").Inc()
	} else {
		m.searchCache.WithLabelValues("miss").Inc()
	}
}

// LibraryLoad records a load attempt.
func (m *Metrics) LibraryLoad(d time.Duration, problems int, err error) {
	m.loadSeconds.Observe(d.Seconds())
	if err != nil {
		m.loadErrors.Inc()
		m.loadFailing.Set(1)
		return
	}
	m.loadFailing.Set(0)
	m.loadProblems.Set(float64(problems))
}

// MemoryLimit records the Go memory limit the process runs under, in
// bytes (0: none), so a dashboard can set the heap beside it.
func (m *Metrics) MemoryLimit(bytes int64) { m.memoryLimit.Set(float64(bytes)) }

// TriageOutcome counts a triage result.
func (m *Metrics) TriageOutcome(route, via string) { m.triage.WithLabelValues(route, via).Inc() }

// ClusterReadError counts a failed read of the live cluster.
func (m *Metrics) ClusterReadError(kind string) { m.clusterErrors.WithLabelValues(kind).Inc() }
