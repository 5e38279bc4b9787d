package bench

import (
	"net/url"
	"sort"
	"strings"

	"casebook/internal/library"
)

// Query is one entry of the fixed query mix.
type Query struct {
	Category string // words, phrase, typo, error
	Text     string
	Kind     string
	Filters  map[library.Facet][]string
}

// Filtered reports whether the query carries filters.
func (q Query) Filtered() bool { return len(q.Filters) > 0 || q.Kind != "" }

// Label names the query in reports.
func (q Query) Label() string {
	s := q.Text
	if q.Kind != "" {
		s += " kind=" + q.Kind
	}
	facets := make([]string, 0, len(q.Filters))
	for f := range q.Filters {
		facets = append(facets, string(f))
	}
	sort.Strings(facets)
	for _, f := range facets {
		s += " " + f + "=" + strings.Join(q.Filters[library.Facet(f)], ",")
	}
	return s
}

// URLQuery is the query string of the same search on /search and
// /api/search.
func (q Query) URLQuery() string {
	v := url.Values{}
	v.Set("q", q.Text)
	if q.Kind != "" {
		v.Set("kind", q.Kind)
	}
	for f, terms := range q.Filters {
		for _, t := range terms {
			v.Add(string(f), t)
		}
	}
	return v.Encode()
}

func f(facet library.Facet, terms ...string) map[library.Facet][]string {
	return map[library.Facet][]string{facet: terms}
}

// Mix is the fixed query mix: what SREs type (symptoms in their words,
// component names), quoted phrases, misspellings, and error strings pasted
// from a terminal, each group with and without facet filters. The words come
// from the shipped library, so they also hit generated libraries, whose text
// is drawn from it.
func Mix() []Query {
	var qs []Query
	add := func(cat string, text string, kind string, filters map[library.Facet][]string) {
		qs = append(qs, Query{Category: cat, Text: text, Kind: kind, Filters: filters})
	}
	for _, t := range []string{"dns outage", "coredns oom", "gpu driver upgrade", "certificate expired",
		"etcd", "kernel panic", "pods stuck pending", "cpu throttling latency", "node not ready after upgrade",
		"karpenter", "webhook timeout", "conntrack"} {
		add("words", t, "", nil)
	}
	add("words", "dns outage", "", f(library.FacetComponent, "coredns"))
	add("words", "gpu driver upgrade", "", f(library.FacetDomain, "gpu"))
	add("words", "node not ready", "incident", f(library.FacetSymptom, "node-not-ready"))
	add("words", "etcd", "", map[library.Facet][]string{library.FacetComponent: {"etcd"}, library.FacetCauseCategory: {"capacity", "software-defect"}})

	for _, t := range []string{`"memory limit"`, `"control plane"`, `"status page"`, `"node pool" upgrade`,
		`"rolled back"`, `"root cause"`} {
		add("phrase", t, "", nil)
	}
	add("phrase", `"memory limit"`, "", f(library.FacetSymptom, "oom-killed"))
	add("phrase", `"control plane"`, "incident", f(library.FacetDomain, "kubernetes"))

	for _, t := range []string{"karpneter", "coredsn outage", "certifcate expired", "kubernets upgrade",
		"throtling", "contianer restarts"} {
		add("typo", t, "", nil)
	}
	add("typo", "certifcate expired", "", f(library.FacetCause, "certificate-expiry"))
	add("typo", "throtling", "", f(library.FacetSymptom, "cpu-throttling"))

	for _, t := range []string{"0/3 nodes are available: 3 Insufficient nvidia.com/gpu",
		"OOMKilled exit code 137", "x509: certificate has expired or is not yet valid",
		"Back-off restarting failed container", "context deadline exceeded",
		"NVML: Unknown Error", "Xid 79 GPU has fallen off the bus", "i/o timeout"} {
		add("error", t, "", nil)
	}
	add("error", "OOMKilled exit code 137", "", f(library.FacetComponent, "kubelet", "container-runtime"))
	add("error", "context deadline exceeded", "incident", f(library.FacetComponent, "kube-apiserver", "etcd"))
	return qs
}
