package trends_test

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"testing"

	"casebook/internal/library"
	"casebook/internal/selection"
	"casebook/internal/store"
	"casebook/internal/trends"
	deflib "casebook/library"
)

// world is the shipped library with its read model, and an oracle that
// filters the parsed incidents without the store.
type world struct {
	lib  *library.Library
	st   *store.Store
	orgs map[string]string
}

func load(t *testing.T) world {
	t.Helper()
	lib, _, err := library.Load(deflib.FS)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Build(context.Background(), t.TempDir(), lib, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	w := world{lib: lib, st: st, orgs: map[string]string{}}
	for _, in := range lib.Incidents {
		w.orgs[library.Slug(in.Organization)] = in.Organization
	}
	return w
}

// terms is an incident's terms of a facet, written out from the parsed
// incident (cause categories through the taxonomy).
func (w world) terms(in *library.Incident, f library.Facet) []string {
	switch f {
	case library.FacetCauseCategory:
		var out []string
		for _, c := range in.Causes {
			if t, ok := w.lib.Taxonomy.Term(library.FacetCause, c); ok && !slices.Contains(out, t.Category) {
				out = append(out, t.Category)
			}
		}
		return out
	case library.FacetCause:
		return in.Causes
	case library.FacetComponent:
		return in.Components
	case library.FacetSymptom:
		return in.Symptoms
	case library.FacetFactor:
		return in.ContributingFactors
	case library.FacetDomain:
		return in.Domains
	}
	return nil
}

// selected lists the incidents f selects: OR within a facet, AND across.
func (w world) selected(f store.Filter) []*library.Incident {
	var out []*library.Incident
next:
	for _, in := range w.lib.Incidents {
		for facet, vals := range f.Terms {
			if len(vals) > 0 && !slices.ContainsFunc(vals, func(v string) bool { return slices.Contains(w.terms(in, facet), v) }) {
				continue next
			}
		}
		if len(f.Orgs) > 0 && !slices.Contains(f.Orgs, library.Slug(in.Organization)) {
			continue
		}
		if len(f.Years) > 0 && !slices.Contains(f.Years, in.Year) {
			continue
		}
		out = append(out, in)
	}
	return out
}

// check holds one count to the oracle and its link to the store: the
// link's parameters, read by the one parser, list exactly count incidents.
func (w world) check(t *testing.T, what string, c trends.Count, want int) {
	t.Helper()
	if c.Count != want {
		t.Errorf("%s: count %d, oracle %d", what, c.Count, want)
	}
	if want == 0 {
		if c.Query != "" {
			t.Errorf("%s: a zero count links to %q", what, c.Query)
		}
		return
	}
	q, err := url.ParseQuery(c.Query)
	if err != nil {
		t.Fatalf("%s: query %q: %v", what, c.Query, err)
	}
	f, err := selection.ParseFilter(q, w.lib.Taxonomy, w.orgs, []string{library.PublicLayer})
	if err != nil {
		t.Fatalf("%s: the parser refuses its own link %q: %v", what, c.Query, err)
	}
	_, total, err := w.st.ListIncidents(context.Background(), f, store.SortNewest, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if total != c.Count {
		t.Errorf("%s: links to %q, which lists %d incidents, not %d", what, c.Query, total, c.Count)
	}
}

func withTerm(list []*library.Incident, w world, f library.Facet, term string, year int) (n int, orgs map[string]bool) {
	orgs = map[string]bool{}
	for _, in := range list {
		if (year == 0 || in.Year == year) && slices.Contains(w.terms(in, f), term) {
			n++
			orgs[in.Organization] = true
		}
	}
	return n, orgs
}

// TestCountsMatchTheLibrary computes every chart for a range of filters
// and checks every count against the oracle and every link against the
// store.
func TestCountsMatchTheLibrary(t *testing.T) {
	w := load(t)
	filters := []struct {
		name string
		q    string
	}{
		{"everything", ""},
		{"gpu", "domain=gpu"},
		{"gpu since 2024", "domain=gpu&year=2024,2025,2026"},
		{"two categories", "cause_category=capacity,software-defect"},
		{"kubelet or scheduler", "component=kubelet&component=kube-scheduler"},
		{"a factor", "factor=single-point-of-failure"},
		{"llm serving", "domain=llm-serving"},
		{"one year", "year=2023"},
		{"nothing", "domain=gpu&domain=llm-serving&year=1999"},
	}
	for _, tt := range filters {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.q)
			f, err := selection.ParseFilter(q, w.lib.Taxonomy, w.orgs, []string{library.PublicLayer})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := trends.Compute(context.Background(), w.st, w.lib.Taxonomy, f)
			if err != nil {
				t.Fatal(err)
			}
			sel := w.selected(f)
			if rep.Incidents != len(sel) {
				t.Fatalf("incidents %d, oracle %d", rep.Incidents, len(sel))
			}
			if tt.name != "nothing" && len(sel) == 0 {
				t.Fatal("the filter selects nothing; the test would prove nothing")
			}
			for _, ch := range []trends.YearChart{rep.CausesByYear, rep.DomainsByYear} {
				facet := library.Facet(ch.Facet)
				for _, bar := range ch.Years {
					n := 0
					for _, in := range sel {
						if in.Year == bar.Year {
							n++
						}
					}
					w.check(t, ch.Facet+" incidents of "+itoa(bar.Year), bar.Incidents, n)
					for i, s := range ch.Series {
						if len(f.Terms[facet]) > 0 && !slices.Contains(f.Terms[facet], s.Term) {
							t.Errorf("%s charts %s, outside the filter %v", ch.Facet, s.Term, f.Terms[facet])
						}
						want, _ := withTerm(sel, w, facet, s.Term, bar.Year)
						w.check(t, ch.Facet+" "+s.Term+" in "+itoa(bar.Year), bar.Segments[i], want)
					}
				}
			}
			for _, r := range rep.Components.Rows {
				want, _ := withTerm(sel, w, library.FacetComponent, r.Term, 0)
				w.check(t, "component "+r.Term, r.Total, want)
				for i, y := range rep.Components.Years {
					want, _ := withTerm(sel, w, library.FacetComponent, r.Term, y)
					w.check(t, "component "+r.Term+" in "+itoa(y), r.PerYear[i].Incidents, want)
					if (want == 0) != (r.PerYear[i].Place == 0) {
						t.Errorf("component %s in %d: place %d with %d incidents", r.Term, y, r.PerYear[i].Place, want)
					}
				}
			}
			for i, r := range rep.Factors.Rows {
				want, orgs := withTerm(sel, w, library.FacetFactor, r.Term, 0)
				w.check(t, "factor "+r.Term, r.Incidents, want)
				if r.Organizations != len(orgs) {
					t.Errorf("factor %s: %d organisations, oracle %d", r.Term, r.Organizations, len(orgs))
				}
				if i > 0 && rep.Factors.Rows[i-1].Organizations < r.Organizations {
					t.Errorf("factor %s (%d organisations) ranked below one with fewer", r.Term, r.Organizations)
				}
			}
		})
	}
}

// TestComponentPlaces: the places of a year order the chart's components
// by that year's incidents, 1 the most, and the years are the last three.
func TestComponentPlaces(t *testing.T) {
	w := load(t)
	rep, err := trends.Compute(context.Background(), w.st, w.lib.Taxonomy, store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ys := rep.Components.Years
	last := rep.CausesByYear.Years[len(rep.CausesByYear.Years)-1].Year
	if want := []int{last - 2, last - 1, last}; !slices.Equal(ys, want) {
		t.Fatalf("years %v, want %v", ys, want)
	}
	if len(rep.Components.Rows) != 10 {
		t.Fatalf("%d components, want the top 10", len(rep.Components.Rows))
	}
	for i := range ys {
		var places []int
		byPlace := map[int]int{}
		for _, r := range rep.Components.Rows {
			if p := r.PerYear[i].Place; p > 0 {
				places = append(places, p)
				byPlace[p] = r.PerYear[i].Incidents.Count
			}
		}
		slices.Sort(places)
		for j, p := range places {
			if p != j+1 {
				t.Errorf("%d: places %v, want 1…%d", ys[i], places, len(places))
				break
			}
			if j > 0 && byPlace[p] > byPlace[p-1] {
				t.Errorf("%d: place %d has %d incidents, more than place %d", ys[i], p, byPlace[p], p-1)
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
