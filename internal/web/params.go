package web

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"casebook/internal/library"
	"casebook/internal/store"
)

// facetParams maps the query parameter of each facet filter to its facet.
// The names are an API contract: component, cause, cause_category, symptom,
// factor, domain (plus org and year, which are not taxonomy facets).
var facetParams = []struct {
	Param string
	Facet library.Facet
}{
	{"cause_category", library.FacetCauseCategory},
	{"cause", library.FacetCause},
	{"component", library.FacetComponent},
	{"symptom", library.FacetSymptom},
	{"factor", library.FacetFactor},
	{"domain", library.FacetDomain},
}

// listState is everything the library and search pages keep in the URL.
type listState struct {
	Filter  store.Filter
	Query   string
	Kind    string
	Sort    string
	Page    int
	PerPage int
	// defaultPer is the page size the URL may leave out; links carry any
	// other per_page so paging keeps the size the user chose.
	defaultPer int
}

// badRequest is a client error with a message that names the fix.
type badRequest struct{ msg string }

func (e badRequest) Error() string { return e.msg }

// parseList reads and validates the list state from a query string. Unknown
// filter values are an error naming the nearest valid value, so a mistyped
// link fails loudly instead of silently showing everything.
func parseList(q url.Values, tax *library.Taxonomy, orgs []string, defaultPer int) (listState, error) {
	st := listState{Filter: store.Filter{Terms: map[library.Facet][]string{}}, Sort: store.SortNewest, Page: 1, PerPage: defaultPer, defaultPer: defaultPer}
	for _, fp := range facetParams {
		for _, v := range splitValues(q[fp.Param]) {
			if _, ok := tax.Term(fp.Facet, v); !ok {
				return st, badRequest{unknownValue(fp.Param, v, tax.IDs(fp.Facet))}
			}
			if !contains(st.Filter.Terms[fp.Facet], v) {
				st.Filter.Terms[fp.Facet] = append(st.Filter.Terms[fp.Facet], v)
			}
		}
	}
	for _, v := range splitValues(q["org"]) {
		slug := library.Slug(v)
		if !contains(orgs, slug) {
			return st, badRequest{unknownValue("org", v, orgs)}
		}
		if !contains(st.Filter.Orgs, slug) {
			st.Filter.Orgs = append(st.Filter.Orgs, slug)
		}
	}
	for _, v := range splitValues(q["year"]) {
		y, err := strconv.Atoi(v)
		if err != nil || y < 1970 || y > 2100 {
			return st, badRequest{fmt.Sprintf("invalid year %q: want a four-digit year such as 2024", v)}
		}
		if !containsInt(st.Filter.Years, y) {
			st.Filter.Years = append(st.Filter.Years, y)
		}
	}
	switch s := q.Get("sort"); s {
	case "", store.SortNewest, store.SortOldest, store.SortTitle:
		if s != "" {
			st.Sort = s
		}
	default:
		return st, badRequest{fmt.Sprintf("invalid sort %q: want newest, oldest or title", s)}
	}
	var err error
	if st.Page, err = intParam(q, "page", 1, 1, 100000); err != nil {
		return st, err
	}
	if st.PerPage, err = intParam(q, "per_page", defaultPer, 1, 100); err != nil {
		return st, err
	}
	st.Query = strings.TrimSpace(q.Get("q"))
	if len(st.Query) > 500 {
		return st, badRequest{"query too long: at most 500 characters"}
	}
	switch k := q.Get("kind"); k {
	case "", "incident", "playbook":
		st.Kind = k
	default:
		return st, badRequest{fmt.Sprintf("invalid kind %q: want incident or playbook", k)}
	}
	return st, nil
}

func unknownValue(param, v string, valid []string) string {
	if n := library.Nearest(v, valid); n != "" {
		return fmt.Sprintf("unknown %s %q (did you mean %q?)", param, v, n)
	}
	if len(valid) > 30 {
		return fmt.Sprintf("unknown %s %q; see /api/taxonomy for the valid values", param, v)
	}
	return fmt.Sprintf("unknown %s %q; valid values: %s", param, v, strings.Join(valid, ", "))
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

func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, badRequest{fmt.Sprintf("invalid %s %q: want a number from %d to %d", name, s, lo, hi)}
	}
	return n, nil
}

// values renders the state back into a query string; the page is left out
// when it is 1 so links stay short.
func (st listState) values() url.Values {
	v := url.Values{}
	if st.Query != "" {
		v.Set("q", st.Query)
	}
	if st.Kind != "" {
		v.Set("kind", st.Kind)
	}
	for _, fp := range facetParams {
		for _, t := range st.Filter.Terms[fp.Facet] {
			v.Add(fp.Param, t)
		}
	}
	for _, o := range st.Filter.Orgs {
		v.Add("org", o)
	}
	for _, y := range st.Filter.Years {
		v.Add("year", strconv.Itoa(y))
	}
	if st.Sort != "" && st.Sort != store.SortNewest {
		v.Set("sort", st.Sort)
	}
	if st.PerPage != 0 && st.PerPage != st.defaultPer {
		v.Set("per_page", strconv.Itoa(st.PerPage))
	}
	if st.Page > 1 {
		v.Set("page", strconv.Itoa(st.Page))
	}
	return v
}

func (st listState) href(path string) string {
	if e := st.values().Encode(); e != "" {
		return path + "?" + e
	}
	return path
}

// clone copies the state deeply so link builders can change it freely.
func (st listState) clone() listState {
	c := st
	c.Filter.Terms = map[library.Facet][]string{}
	for k, v := range st.Filter.Terms {
		c.Filter.Terms[k] = append([]string(nil), v...)
	}
	c.Filter.Orgs = append([]string(nil), st.Filter.Orgs...)
	c.Filter.Years = append([]int(nil), st.Filter.Years...)
	return c
}

// toggle returns the state with param=value added or removed, back on page 1.
func (st listState) toggle(param, value string) listState {
	c := st.clone()
	c.Page = 1
	switch param {
	case "org":
		c.Filter.Orgs = toggleStr(c.Filter.Orgs, value)
	case "year":
		y, _ := strconv.Atoi(value)
		if containsInt(c.Filter.Years, y) {
			c.Filter.Years = removeInt(c.Filter.Years, y)
		} else {
			c.Filter.Years = append(c.Filter.Years, y)
			sort.Sort(sort.Reverse(sort.IntSlice(c.Filter.Years)))
		}
	default:
		for _, fp := range facetParams {
			if fp.Param == param {
				c.Filter.Terms[fp.Facet] = toggleStr(c.Filter.Terms[fp.Facet], value)
			}
		}
	}
	return c
}

func (st listState) selected(param, value string) bool {
	switch param {
	case "org":
		return contains(st.Filter.Orgs, value)
	case "year":
		y, _ := strconv.Atoi(value)
		return containsInt(st.Filter.Years, y)
	}
	for _, fp := range facetParams {
		if fp.Param == param {
			return contains(st.Filter.Terms[fp.Facet], value)
		}
	}
	return false
}

func toggleStr(list []string, v string) []string {
	for i, x := range list {
		if x == v {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return append(list, v)
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func removeInt(list []int, v int) []int {
	var out []int
	for _, x := range list {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
