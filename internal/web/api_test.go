package web_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type apiGraph struct {
	Nodes []struct {
		ID    string `json:"id"`
		Kind  string `json:"kind"`
		Label string `json:"label"`
		Count int    `json:"count"`
	} `json:"nodes"`
	Edges []struct {
		Source string `json:"source"`
		Target string `json:"target"`
		Weight int    `json:"weight"`
	} `json:"edges"`
}

// TestAPIIncidentFilters checks every filter kind, OR within a parameter
// (repeated or comma-separated) and AND across parameters against an
// oracle that filters the whole list by hand.
func TestAPIIncidentFilters(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	w := newWorld(t, h)
	all := allIncidents(t, h, "")
	tests := []struct {
		name, query string
	}{
		{"component", "component=gpu-driver"},
		{"cause", "cause=missing-library-in-image"},
		{"cause category", "cause_category=software-defect"},
		{"symptom", "symptom=gpu-not-visible"},
		{"factor", "factor=hidden-dependency"},
		{"domain", "domain=gpu"},
		{"org", "org=amazon-eks-users-awslabs-amazon-eks-ami"},
		{"org by name", "org=Amazon+EKS+users+(awslabs/amazon-eks-ami)"},
		{"year", "year=2025"},
		{"repeated component is OR", "component=gpu-driver&component=coredns"},
		{"comma list is OR", "component=gpu-driver,coredns"},
		{"repeated and comma mixed", "symptom=gpu-not-visible,pod-pending&symptom=node-replacement-loop"},
		{"repeated year", "year=2019&year=2025"},
		{"repeated cause category", "cause_category=software-defect&cause_category=automation-side-effect"},
		{"two facets are AND", "component=gpu-driver&symptom=gpu-not-visible"},
		{"cause and its category", "cause=software-bug&cause_category=software-defect"},
		{"org and year", "org=amazon-eks-users-awslabs-amazon-eks-ami&year=2026"},
		{"OR within, AND across", "component=gpu-driver,node-os-image&factor=hidden-dependency&domain=gpu,kubernetes"},
		{"every kind at once", "component=gpu-driver&cause=missing-library-in-image&cause_category=configuration-change,software-defect,automation-side-effect&symptom=node-replacement-loop&factor=automation-amplified&domain=gpu&org=inflab-inflearn&year=2025"},
		{"empty intersection", "component=gpu-driver&year=2017"},
		{"duplicates count once", "component=gpu-driver&component=gpu-driver,gpu-driver"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := w.expect(all, strings.ReplaceAll(tt.query, "Amazon+EKS+users+(awslabs/amazon-eks-ami)", "amazon-eks-users-awslabs-amazon-eks-ami"))
			var l apiList
			getJSON(t, h, "/api/incidents?per_page=100&"+tt.query, http.StatusOK, &l)
			// The first page; Total counts them all.
			if d := cmp.Diff(want[:min(100, len(want))], ids(l.Items)); d != "" {
				t.Errorf("items (-want +got):\n%s", d)
			}
			if l.Total != len(want) {
				t.Errorf("total %d, want %d", l.Total, len(want))
			}
		})
	}
	// The oracle itself must not be vacuous.
	if n := len(w.expect(all, "component=gpu-driver&cause=missing-library-in-image&cause_category=configuration-change,software-defect,automation-side-effect&symptom=node-replacement-loop&factor=automation-amplified&domain=gpu&org=inflab-inflearn&year=2025")); n == 0 {
		t.Errorf("the every-kind query selects nothing; pick values that match a case")
	}
}

func TestAPIIncidentsShape(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	rec := get(t, h, "/api/incidents?component=gpu-driver")
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	requireKeys(t, "list", raw, "total", "page", "per_page", "items", "facets")
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw["items"], &items); err != nil || len(items) == 0 {
		t.Fatalf("items: %v (%d)", err, len(items))
	}
	for _, it := range items {
		requireKeys(t, "item", it, "id", "title", "summary", "organization", "date", "domains", "components", "causes", "symptoms", "contributing_factors")
		for _, k := range []string{"domains", "components", "causes", "symptoms", "contributing_factors"} {
			var list []string
			if err := json.Unmarshal(it[k], &list); err != nil || list == nil {
				t.Errorf("item %s: %s is %s, want a JSON array", it["id"], k, it[k])
			}
		}
	}
	var facets map[string][]map[string]json.RawMessage
	if err := json.Unmarshal(raw["facets"], &facets); err != nil {
		t.Fatal(err)
	}
	want := []string{"cause", "cause_category", "component", "domain", "factor", "layer", "org", "symptom", "year"}
	if d := cmp.Diff(want, slices.Sorted(maps.Keys(facets))); d != "" {
		t.Errorf("facets (-want +got):\n%s", d)
	}
	for name, vals := range facets {
		if len(vals) == 0 {
			t.Errorf("facet %s is empty", name)
		}
		for _, v := range vals {
			requireKeys(t, "facet "+name, v, "term", "label", "count")
		}
	}

	var l apiList
	getJSON(t, h, "/api/incidents?component=gpu-driver", http.StatusOK, &l)
	if l.Page != 1 || l.PerPage != 20 {
		t.Errorf("page %d per_page %d, want the defaults 1 and 20", l.Page, l.PerPage)
	}
	for _, f := range l.Facets["component"] {
		if f.Term == "gpu-driver" && f.Count != l.Total {
			t.Errorf("component facet counts gpu-driver %d, total %d", f.Count, l.Total)
		}
	}
	for _, name := range []string{"year", "org"} {
		sum := 0
		for _, f := range l.Facets[name] {
			sum += f.Count
		}
		if sum != l.Total {
			t.Errorf("%s facet adds up to %d, total %d", name, sum, l.Total)
		}
	}
	for _, id := range seedGPUDriverCases {
		if !slices.Contains(ids(allIncidents(t, h, "component=gpu-driver")), id) {
			t.Errorf("seed case %s not among the GPU-driver cases", id)
		}
	}
}

func requireKeys(t *testing.T, what string, m map[string]json.RawMessage, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Errorf("%s lacks %q; has %v", what, k, slices.Sorted(maps.Keys(m)))
		}
	}
}

func TestAPIPaging(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	all := ids(allIncidents(t, h, ""))
	tests := []struct {
		query         string
		page, perPage int
		want          []string
	}{
		{"", 1, 20, all[:min(20, len(all))]},
		{"per_page=5", 1, 5, all[:5]},
		{"per_page=5&page=2", 2, 5, all[5:10]},
		{"per_page=1&page=3", 3, 1, all[2:3]},
		{"per_page=100", 1, 100, all[:min(100, len(all))]},
		{"page=500", 500, 20, []string{}}, // past the end, within the 10,000 results paging reaches
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			var l apiList
			getJSON(t, h, "/api/incidents?"+tt.query, http.StatusOK, &l)
			if l.Page != tt.page || l.PerPage != tt.perPage || l.Total != len(all) {
				t.Errorf("page %d per_page %d total %d, want %d %d %d", l.Page, l.PerPage, l.Total, tt.page, tt.perPage, len(all))
			}
			if l.Items == nil {
				t.Errorf("items is null, want []")
			}
			if d := cmp.Diff(tt.want, ids(l.Items)); d != "" {
				t.Errorf("items (-want +got):\n%s", d)
			}
		})
	}
}

func TestAPIIncident(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	var raw map[string]json.RawMessage
	getJSON(t, h, "/api/incidents/IL-0171", http.StatusOK, &raw)
	requireKeys(t, "incident", raw, "id", "title", "summary", "organization", "date", "domains", "components", "causes",
		"symptoms", "contributing_factors", "sources", "playbooks", "sections")
	var in apiIncident
	getJSON(t, h, "/api/incidents/IL-0171", http.StatusOK, &in)
	if in.ID != "IL-0171" || !slices.Contains(in.Components, "gpu-driver") || len(in.Sources) == 0 {
		t.Errorf("incident %+v", in)
	}
	var sections []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if err := json.Unmarshal(raw["sections"], &sections); err != nil || len(sections) != 6 || sections[0].ID != "symptom" {
		t.Errorf("sections %s (%v)", raw["sections"], err)
	}
}

func TestAPIPlaybooksAndTaxonomy(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	var list struct {
		Total int                          `json:"total"`
		Items []map[string]json.RawMessage `json:"items"`
	}
	getJSON(t, h, "/api/playbooks", http.StatusOK, &list)
	if list.Total == 0 || list.Total != len(list.Items) {
		t.Fatalf("total %d, %d items", list.Total, len(list.Items))
	}
	for _, pb := range list.Items {
		requireKeys(t, "playbook", pb, "id", "title", "summary", "symptoms")
		var id string
		_ = json.Unmarshal(pb["id"], &id)
		var one map[string]json.RawMessage
		getJSON(t, h, "/api/playbooks/"+id, http.StatusOK, &one)
		requireKeys(t, "playbook "+id, one, "id", "title", "summary", "symptoms", "sections")
	}

	var tax map[string][]struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	}
	getJSON(t, h, "/api/taxonomy", http.StatusOK, &tax)
	want := []string{"cause", "cause_category", "component", "domain", "factor", "symptom"}
	if d := cmp.Diff(want, slices.Sorted(maps.Keys(tax))); d != "" {
		t.Errorf("taxonomy facets (-want +got):\n%s", d)
	}
	for facet, terms := range tax {
		if len(terms) == 0 {
			t.Errorf("facet %s has no terms", facet)
		}
		for _, term := range terms {
			if term.ID == "" || term.Label == "" {
				t.Errorf("facet %s: term %+v lacks id or label", facet, term)
			}
		}
	}
	if !slices.ContainsFunc(tax["component"], func(x struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	}) bool {
		return x.ID == "gpu-driver"
	}) {
		t.Errorf("component gpu-driver missing from the taxonomy")
	}
}

// TestAPIGraph checks the graph of the GPU-driver set: every case is linked
// to each of its causes, components, symptoms and factors, term counts are
// case counts, and focus keeps one term's neighbourhood.
func TestAPIGraph(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	gpu := allIncidents(t, h, "component=gpu-driver")

	var raw struct {
		Nodes []map[string]json.RawMessage `json:"nodes"`
		Edges []map[string]json.RawMessage `json:"edges"`
	}
	getJSON(t, h, "/api/graph?component=gpu-driver", http.StatusOK, &raw)
	for _, n := range raw.Nodes {
		requireKeys(t, "node", n, "id", "kind", "label", "count")
	}
	for _, e := range raw.Edges {
		requireKeys(t, "edge", e, "source", "target", "weight")
	}

	tests := []struct {
		name, query string
		cases       []apiItem
	}{
		{"filtered set", "component=gpu-driver", gpu},
		{"focus on a term", "focus=component:gpu-driver", gpu},
		{"filter and focus", "component=gpu-driver&focus=symptom:gpu-not-visible", allIncidents(t, h, "component=gpu-driver&symptom=gpu-not-visible")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g apiGraph
			getJSON(t, h, "/api/graph?"+tt.query, http.StatusOK, &g)
			nodes := map[string]int{}
			var cases []string
			for _, n := range g.Nodes {
				nodes[n.ID] = n.Count
				if n.Kind == "case" {
					cases = append(cases, strings.TrimPrefix(n.ID, "case:"))
				}
				if n.Label == "" || !strings.HasPrefix(n.ID, n.Kind+":") {
					t.Errorf("node %+v", n)
				}
			}
			slices.Sort(cases)
			if d := cmp.Diff(sortedIDs(tt.cases), cases); d != "" {
				t.Errorf("case nodes (-want +got):\n%s", d)
			}
			edges := map[[2]string]int{}
			for _, e := range g.Edges {
				if _, ok := nodes[e.Source]; !ok {
					t.Errorf("edge from unknown node %s", e.Source)
				}
				if _, ok := nodes[e.Target]; !ok {
					t.Errorf("edge to unknown node %s", e.Target)
				}
				if e.Weight < 1 {
					t.Errorf("edge %s–%s weight %d", e.Source, e.Target, e.Weight)
				}
				edges[[2]string{e.Source, e.Target}] = e.Weight
			}
			termCases := map[string]int{}
			for _, it := range tt.cases {
				for _, param := range []string{"cause", "component", "symptom", "factor"} {
					for _, term := range it.terms(param) {
						id := param + ":" + term
						termCases[id]++
						if edges[[2]string{"case:" + it.ID, id}] != 1 {
							t.Errorf("no edge %s → %s", it.ID, id)
						}
					}
				}
			}
			for id, n := range termCases {
				if nodes[id] != n {
					t.Errorf("node %s count %d, want %d cases", id, nodes[id], n)
				}
			}
			// Two terms of the same case are linked with the number of
			// cases that share them.
			it := tt.cases[0]
			a, b := "cause:"+it.Causes[0], "symptom:"+it.Symptoms[0]
			want := 0
			for _, c := range tt.cases {
				if slices.Contains(c.Causes, it.Causes[0]) && slices.Contains(c.Symptoms, it.Symptoms[0]) {
					want++
				}
			}
			if got := max(edges[[2]string{a, b}], edges[[2]string{b, a}]); got != want {
				t.Errorf("co-occurrence %s–%s weight %d, want %d", a, b, got, want)
			}
		})
	}
}

func TestAPIErrors(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	tests := []struct {
		target string
		status int
		says   string
	}{
		{"/api/incidents?component=gpu-drivr", 400, `"gpu-driver"`},
		{"/api/incidents?cause=software-bugg", 400, `"software-bug"`},
		{"/api/incidents?cause_category=software-defekt", 400, `"software-defect"`},
		{"/api/incidents?symptom=pod-pendng", 400, `"pod-pending"`},
		{"/api/incidents?factor=hidden-dependancy", 400, `"hidden-dependency"`},
		{"/api/incidents?domain=gpuu", 400, `"gpu"`},
		{"/api/incidents?org=inflab-inflearm", 400, `"inflab-inflearn"`},
		{"/api/incidents?org=zzzzzzzzzzzzzzzzzzzz", 400, "org"},
		{"/api/incidents?component=gpu-driver,nope-nope-nope", 400, "nope-nope-nope"},
		{"/api/incidents?year=12", 400, "year"},
		{"/api/incidents?year=twenty", 400, "year"},
		{"/api/incidents?year=3000", 400, "year"},
		{"/api/incidents?page=0", 400, "page"},
		{"/api/incidents?page=-1", 400, "page"},
		{"/api/incidents?page=x", 400, "page"},
		{"/api/incidents?per_page=0", 400, "per_page"},
		{"/api/incidents?per_page=101", 400, "per_page"},
		{"/api/incidents?per_page=ten", 400, "per_page"},
		{"/api/incidents?sort=best", 400, "sort"},
		{"/api/graph?component=gpu-drivr", 400, `"gpu-driver"`},
		{"/api/graph?focus=gpu-driver", 400, "focus"},
		{"/api/graph?focus=planet:earth", 400, "focus"},
		{"/api/graph?focus=component:gpu-drivr", 400, `"gpu-driver"`},
		{"/api/search?q=gpu&page=999", 400, `"999"`},
		{"/api/search?q=gpu&page=-1", 400, "page"},
		{"/api/search?q=gpu&per_page=500", 400, "per_page"},
		{"/api/incidents/IL-9999", 404, ""},
		{"/api/incidents/nonsense", 404, ""},
		{"/api/playbooks/no-such-playbook", 404, ""},
		{"/api/no-such-endpoint", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			var body map[string]string
			getJSON(t, h, tt.target, tt.status, &body)
			msg, ok := body["error"]
			ko, hasKo := body["error_ko"]
			if !ok || msg == "" || len(body) != 2 || !hasKo {
				t.Fatalf("body %v, want {\"error\": ..., \"error_ko\": ...}", body)
			}
			if !strings.Contains(msg, tt.says) {
				t.Errorf("error %q does not mention %q", msg, tt.says)
			}
			// The Korean says the same about the same value: what the
			// user typed, or the nearest id, stays as typed.
			if !regexp.MustCompile(`\p{Hangul}`).MatchString(ko) || strings.Contains(tt.says, `"`) && !strings.Contains(ko, tt.says) {
				t.Errorf("error_ko %q is not Korean or lacks %q", ko, tt.says)
			}
		})
	}
}
