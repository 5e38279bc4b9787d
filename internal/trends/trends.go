// Package trends counts the library by year, domain, component and
// contributing factor for the trends page, its JSON and the MCP tool: the
// three doors render one Report. Every count comes with the library filter
// that selects exactly what it counts, so each bar can link to its cases.
package trends

import (
	"context"
	"slices"
	"sort"

	"casebook/internal/library"
	"casebook/internal/selection"
	"casebook/internal/store"
)

// Report is every chart of one selection.
type Report struct {
	// Incidents is how many incidents the selection holds.
	Incidents     int            `json:"incidents"`
	CausesByYear  YearChart      `json:"causes_by_year"`
	DomainsByYear YearChart      `json:"domains_by_year"`
	Components    ComponentChart `json:"components"`
	Factors       FactorChart    `json:"factors"`
}

// Charts names the charts, in the Report's order: the ids of
// /api/trends/{chart} and of the MCP tool's chart argument.
var Charts = []string{"causes_by_year", "domains_by_year", "components", "factors"}

// Term is a taxonomy term as the charts name it.
type Term struct {
	Term    string `json:"term"`
	Label   string `json:"label"`
	LabelKo string `json:"label_ko,omitempty"`
}

// Count is one number with the library filter that selects what it
// counts: Query is the library's parameters ("/?"+Query shows them).
type Count struct {
	Count  int          `json:"count"`
	Query  string       `json:"query"`
	Filter store.Filter `json:"-"`
}

// YearChart counts the incidents of each year by the terms of one facet,
// stacked. An incident with two terms counts in both, so a year's segments
// may add up to more than its incidents.
type YearChart struct {
	Facet  string    `json:"facet"`
	Series []Term    `json:"series"` // the stacked terms, in the taxonomy's order
	Years  []YearBar `json:"years"`  // oldest first, every year in between
}

// YearBar is one year: its incidents and one count per series (aligned
// with YearChart.Series; a zero count has no Query).
type YearBar struct {
	Year      int     `json:"year"`
	Incidents Count   `json:"incidents"`
	Segments  []Count `json:"segments"`
}

// ComponentChart is the components with the most incidents and their
// places in each of the last three years of the selection.
type ComponentChart struct {
	Years []int          `json:"years"` // oldest first
	Rows  []ComponentRow `json:"rows"`
}

// ComponentRow is one component: all its incidents in the selection, and
// per year (aligned with ComponentChart.Years) its incidents and its place
// among the chart's components that year (1 is the most; 0 when it has
// none that year).
type ComponentRow struct {
	Term    string      `json:"term"`
	Label   string      `json:"label"`
	LabelKo string      `json:"label_ko,omitempty"`
	Total   Count       `json:"total"`
	PerYear []YearPlace `json:"per_year"`
}

// YearPlace is a component's incidents in one year and its place.
type YearPlace struct {
	Incidents Count `json:"incidents"`
	Place     int   `json:"place"`
}

// FactorChart is the contributing factors seen at the most organisations.
type FactorChart struct {
	Rows []FactorRow `json:"rows"`
}

// FactorRow is one factor: how many organisations and incidents carry it.
// Both numbers are of the same filter (Incidents.Query); Organizations is
// how many organisations the library lists for it.
type FactorRow struct {
	Term          string `json:"term"`
	Label         string `json:"label"`
	LabelKo       string `json:"label_ko,omitempty"`
	Organizations int    `json:"organizations"`
	Incidents     Count  `json:"incidents"`
}

// Sizes of the charts.
const (
	topComponents = 10
	topFactors    = 10
	rankYears     = 3
)

// Compute counts the incidents f selects.
func Compute(ctx context.Context, st *store.Store, tax *library.Taxonomy, f store.Filter) (Report, error) {
	cases, err := st.ClassifiedIncidents(ctx, f)
	if err != nil {
		return Report{}, err
	}
	r := Report{Incidents: len(cases)}
	years := yearsOf(cases, f)
	r.CausesByYear = yearChart(tax, f, cases, years, library.FacetCauseCategory)
	r.DomainsByYear = yearChart(tax, f, cases, years, library.FacetDomain)
	r.Components = componentChart(tax, f, cases, years)
	r.Factors = factorChart(tax, f, cases)
	return r, nil
}

// yearsOf is the selection's years, oldest first: every year from the
// first to the last, or the years the filter names.
func yearsOf(cases []store.Classified, f store.Filter) []int {
	if len(f.Years) > 0 {
		ys := slices.Clone(f.Years)
		slices.Sort(ys)
		return ys
	}
	if len(cases) == 0 {
		return nil
	}
	lo, hi := cases[0].Year, cases[0].Year
	for _, c := range cases {
		lo, hi = min(lo, c.Year), max(hi, c.Year)
	}
	var ys []int
	for y := lo; y <= hi; y++ {
		ys = append(ys, y)
	}
	return ys
}

// narrowed is f with facet set to exactly term and, when year is not 0,
// the year set to exactly year: the filter of one bar. It selects exactly
// the incidents of f that carry term (in year) because a chart only shows
// the terms and years f allows (charted).
func narrowed(f store.Filter, facet library.Facet, term string, year int) store.Filter {
	n := f
	n.Terms = map[library.Facet][]string{}
	for k, v := range f.Terms {
		n.Terms[k] = v
	}
	if facet != "" {
		n.Terms[facet] = []string{term}
	}
	if year != 0 {
		n.Years = []int{year}
	}
	return n
}

// charted reports whether a chart may show term of facet: when f already
// limits the facet, only to the terms it names, since the library cannot
// say "carries one of f's terms and this one".
func charted(f store.Filter, facet library.Facet, term string) bool {
	return len(f.Terms[facet]) == 0 || slices.Contains(f.Terms[facet], term)
}

func count(n int, f store.Filter) Count {
	if n == 0 {
		return Count{}
	}
	return Count{Count: n, Query: selection.FilterValues(f).Encode(), Filter: f}
}

func termOf(tax *library.Taxonomy, facet library.Facet, id string) Term {
	t := Term{Term: id, Label: id}
	if lt, ok := tax.Term(facet, id); ok {
		t.Label, t.LabelKo = lt.Label, lt.LabelKo
	}
	return t
}

// ranked orders ids by n descending, then by id.
func ranked(n map[string]int) []string {
	ids := make([]string, 0, len(n))
	for id := range n {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if n[ids[i]] != n[ids[j]] {
			return n[ids[i]] > n[ids[j]]
		}
		return ids[i] < ids[j]
	})
	return ids
}

func yearChart(tax *library.Taxonomy, f store.Filter, cases []store.Classified, years []int, facet library.Facet) YearChart {
	total := map[string]int{}
	per := map[int]map[string]int{}
	incidents := map[int]int{}
	for _, c := range cases {
		incidents[c.Year]++
		for _, t := range c.Terms[facet] {
			if !charted(f, facet, t) {
				continue
			}
			total[t]++
			if per[c.Year] == nil {
				per[c.Year] = map[string]int{}
			}
			per[c.Year][t]++
		}
	}
	ch := YearChart{Facet: string(facet), Series: []Term{}, Years: []YearBar{}}
	// Series keep the taxonomy's order, so a term has the same colour
	// under every filter.
	series := ranked(total)
	pos := map[string]int{}
	for i, t := range tax.Terms(facet) {
		pos[t.ID] = i
	}
	sort.SliceStable(series, func(i, j int) bool { return pos[series[i]] < pos[series[j]] })
	for _, id := range series {
		ch.Series = append(ch.Series, termOf(tax, facet, id))
	}
	for _, y := range years {
		bar := YearBar{Year: y, Incidents: count(incidents[y], narrowed(f, "", "", y)), Segments: []Count{}}
		for _, id := range series {
			bar.Segments = append(bar.Segments, count(per[y][id], narrowed(f, facet, id, y)))
		}
		ch.Years = append(ch.Years, bar)
	}
	return ch
}

func componentChart(tax *library.Taxonomy, f store.Filter, cases []store.Classified, years []int) ComponentChart {
	facet := library.FacetComponent
	last := years
	if len(last) > rankYears {
		last = last[len(last)-rankYears:]
	}
	total := map[string]int{}
	per := map[int]map[string]int{}
	for _, c := range cases {
		for _, t := range c.Terms[facet] {
			if !charted(f, facet, t) {
				continue
			}
			total[t]++
			if slices.Contains(last, c.Year) {
				if per[c.Year] == nil {
					per[c.Year] = map[string]int{}
				}
				per[c.Year][t]++
			}
		}
	}
	top := ranked(total)
	if len(top) > topComponents {
		top = top[:topComponents]
	}
	ch := ComponentChart{Years: append([]int{}, last...), Rows: []ComponentRow{}}
	places := map[int]map[string]int{}
	for _, y := range last {
		shown := map[string]int{}
		for _, id := range top {
			if n := per[y][id]; n > 0 {
				shown[id] = n
			}
		}
		places[y] = map[string]int{}
		for i, id := range ranked(shown) {
			places[y][id] = i + 1
		}
	}
	for _, id := range top {
		t := termOf(tax, facet, id)
		row := ComponentRow{Term: id, Label: t.Label, LabelKo: t.LabelKo, Total: count(total[id], narrowed(f, facet, id, 0)), PerYear: []YearPlace{}}
		for _, y := range last {
			row.PerYear = append(row.PerYear, YearPlace{Incidents: count(per[y][id], narrowed(f, facet, id, y)), Place: places[y][id]})
		}
		ch.Rows = append(ch.Rows, row)
	}
	return ch
}

func factorChart(tax *library.Taxonomy, f store.Filter, cases []store.Classified) FactorChart {
	facet := library.FacetFactor
	orgs := map[string]map[string]bool{}
	incidents := map[string]int{}
	for _, c := range cases {
		for _, t := range c.Terms[facet] {
			if !charted(f, facet, t) {
				continue
			}
			if orgs[t] == nil {
				orgs[t] = map[string]bool{}
			}
			orgs[t][c.Org] = true
			incidents[t]++
		}
	}
	top := make([]string, 0, len(orgs))
	for id := range orgs {
		top = append(top, id)
	}
	// Most organisations first, then most incidents.
	sort.Slice(top, func(i, j int) bool {
		a, b := top[i], top[j]
		if len(orgs[a]) != len(orgs[b]) {
			return len(orgs[a]) > len(orgs[b])
		}
		if incidents[a] != incidents[b] {
			return incidents[a] > incidents[b]
		}
		return a < b
	})
	if len(top) > topFactors {
		top = top[:topFactors]
	}
	ch := FactorChart{Rows: []FactorRow{}}
	for _, id := range top {
		t := termOf(tax, facet, id)
		ch.Rows = append(ch.Rows, FactorRow{Term: id, Label: t.Label, LabelKo: t.LabelKo, Organizations: len(orgs[id]),
			Incidents: count(incidents[id], narrowed(f, facet, id, 0))})
	}
	return ch
}

// Chart returns one chart of r by its id (Charts), or false.
func (r Report) Chart(id string) (any, bool) {
	switch id {
	case "causes_by_year":
		return r.CausesByYear, true
	case "domains_by_year":
		return r.DomainsByYear, true
	case "components":
		return r.Components, true
	case "factors":
		return r.Factors, true
	}
	return nil, false
}
