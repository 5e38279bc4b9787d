package export

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"casebook/internal/library"
	"casebook/internal/store"
)

// facetParams are the taxonomy facets a selection can name, as parameters.
var facetParams = []string{"component", "cause", "cause_category", "symptom", "factor", "domain"}

// FilterParams are the selection parameters, named as in /api/incidents:
// the taxonomy facets, then org and year.
var FilterParams = slices.Concat(facetParams, []string{"org", "year"})

// FilterError is a selection the caller has to fix; the message names the
// nearest valid value. It reports itself as a client error so the web layer
// answers 400.
type FilterError struct{ Msg string }

func (e *FilterError) Error() string { return e.Msg }

// ClientError marks the error as the caller's.
func (e *FilterError) ClientError() bool { return true }

// ParseFilter reads a selection from parameters as /api/incidents takes them:
// repeated or comma-separated values, OR within a parameter, AND across
// them. orgs are the organisation slugs of the library. Parameters other
// than FilterParams are ignored.
func ParseFilter(q url.Values, tax *library.Taxonomy, orgs []string) (store.Filter, error) {
	f := store.Filter{Terms: map[library.Facet][]string{}}
	for _, p := range facetParams {
		facet, _ := library.ParseFacet(p)
		for _, v := range splitValues(q[p]) {
			if _, ok := tax.Term(facet, v); !ok {
				return f, unknown(p, v, tax.IDs(facet))
			}
			f.Terms[facet] = appendNew(f.Terms[facet], v)
		}
	}
	for _, v := range splitValues(q["org"]) {
		slug := library.Slug(v)
		if !slices.Contains(orgs, slug) {
			return f, unknown("org", v, orgs)
		}
		f.Orgs = appendNew(f.Orgs, slug)
	}
	for _, v := range splitValues(q["year"]) {
		y, err := strconv.Atoi(v)
		if err != nil || y < 1970 || y > 2100 {
			return f, &FilterError{fmt.Sprintf("invalid year %q: want a four-digit year such as 2024", v)}
		}
		if !slices.Contains(f.Years, y) {
			f.Years = append(f.Years, y)
		}
	}
	return f, nil
}

// FilterValues renders a filter back into parameters, for the export's
// record of how it was made.
func FilterValues(f store.Filter) map[string][]string {
	out := map[string][]string{}
	for _, p := range facetParams {
		facet, _ := library.ParseFacet(p)
		if v := f.Terms[facet]; len(v) > 0 {
			out[p] = v
		}
	}
	if len(f.Orgs) > 0 {
		out["org"] = f.Orgs
	}
	for _, y := range f.Years {
		out["year"] = append(out["year"], strconv.Itoa(y))
	}
	return out
}

func unknown(param, v string, valid []string) error {
	if n := library.Nearest(v, valid); n != "" {
		return &FilterError{fmt.Sprintf("unknown %s %q (did you mean %q?)", param, v, n)}
	}
	if len(valid) > 30 {
		return &FilterError{fmt.Sprintf("unknown %s %q; see /api/taxonomy for the valid values", param, v)}
	}
	return &FilterError{fmt.Sprintf("unknown %s %q; valid values: %s", param, v, strings.Join(valid, ", "))}
}

// splitValues accepts both repeated parameters and comma-separated lists.
func splitValues(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func appendNew(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}
