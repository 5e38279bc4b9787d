package search

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"casebook/internal/library"
)

func search(t *testing.T, r Request) *Result {
	t.Helper()
	res, err := sharedIndex(t).Search(context.Background(), r)
	if err != nil {
		t.Fatalf("Search(%+v): %v", r, err)
	}
	return res
}

func hitIDs(res *Result) []string {
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids
}

// rankOf is the 1-based rank of id in the hits, 0 if absent.
func rankOf(res *Result, id string) int {
	return slices.Index(hitIDs(res), id) + 1
}

func TestSearchFindsTypedForms(t *testing.T) {
	tests := []struct {
		name, query, want string
		within            int
	}{
		{"Korean taxonomy name", "노드 자동 복구", "IL-0171", 3},
		{"Korean without spaces", "노드자동복구", "IL-0171", 3},
		{"Korean particle on an identifier", "libdcgm.so가", "IL-0171", 3},
		{"identifier with dots and slash", "nvidia.com/gpu", "gpu-missing", 10},
		{"CamelCase condition", "AcceleratedHardwareReady", "IL-0171", 5},
		{"condition with value", "AcceleratedHardwareReady=False", "IL-0171", 5},
		{"Kubernetes reason", "OOMKilled", "memory", 3},
		{"pasted error string, after its route's section", "Failed to initialize NVML", "IL-0217", 2},
		{"quoted error string", `"Failed to initialize NVML"`, "IL-0217", 1},
		{"file name", "libdcgm.so", "IL-0171", 1},
		{"typo, one edit", "Karpentr node repair", "IL-0171", 3},
		{"typo, swapped letters", "karpneter gpu race", "IL-0218", 3},
		{"organization", "Zalando", "IL-0001", 2},
		{"alias expansion", "toleration", "gpu-workload-not-scheduled", 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := search(t, Request{Query: tt.query, PerPage: 10})
			if r := rankOf(res, tt.want); r == 0 || r > tt.within {
				t.Errorf("%q: %s at rank %d, want within %d; got %v", tt.query, tt.want, r, tt.within, hitIDs(res))
			}
		})
	}
}

func TestSearchSeedIntents(t *testing.T) {
	playbooks := []string{"gpu-workload-not-scheduled", "pod-pending"}
	for _, q := range []string{"taint toleration GPU mismatch", "GPU node present but workload not scheduled", "Pod pending on GPU node"} {
		res := search(t, Request{Query: q})
		if len(res.Hits) == 0 || !slices.Contains(playbooks, res.Hits[0].ID) {
			t.Errorf("%q: first hit %v, want one of %v", q, hitIDs(res), playbooks)
		}
	}
	res := search(t, Request{Query: "taint toleration GPU mismatch"})
	for _, want := range []Suggestion{
		{Facet: library.FacetSymptom, Term: "untolerated-taint", Label: "Untolerated taint"},
		{Facet: library.FacetComponent, Term: "gpu-hardware", Label: "GPU hardware"},
	} {
		found := false
		for _, s := range res.SuggestedFilters {
			if s.Facet == want.Facet && s.Term == want.Term && s.Label == want.Label {
				found = s.Count > 0
			}
		}
		if !found {
			t.Errorf("suggested filters %v lack %v with a count", res.SuggestedFilters, want)
		}
	}
}

func TestSearchTypoNeverOutranksExactMatch(t *testing.T) {
	ix := sharedIndex(t)
	for word, want := range map[string]int{"pending": 0, "Pending": 0, "pendng": 1, "karpneter": 2, "gpu": 0, "taimt": 1, "노드": 0} {
		if got := ix.fuzziness(word); got != want {
			t.Errorf("fuzziness(%q) = %d, want %d", word, got, want)
		}
	}
	// A correctly spelled word gets no typo expansion at all, so the hits
	// of "schedule" are exactly those of the word and its stems.
	exact := search(t, Request{Query: "scheduling", PerPage: 100})
	typo := search(t, Request{Query: "schedulng", PerPage: 100})
	if typo.Total == 0 || exact.Total == 0 {
		t.Fatalf("scheduling: %d hits, schedulng: %d hits", exact.Total, typo.Total)
	}
	if typo.Hits[0].Score >= exact.Hits[0].Score {
		t.Errorf("typo match scores %.3f, exact %.3f: a typo must score lower", typo.Hits[0].Score, exact.Hits[0].Score)
	}
}

func TestSearchQuotedPhrase(t *testing.T) {
	lib := loadLibrary(t)
	phrase := search(t, Request{Query: `"kernel panic"`, PerPage: 100})
	loose := search(t, Request{Query: `panic kernel`, PerPage: 100})
	reversed := search(t, Request{Query: `"panic kernel"`, PerPage: 100})
	if phrase.Total == 0 || phrase.Total > loose.Total {
		t.Errorf(`"kernel panic": %d hits, kernel panic unquoted: %d`, phrase.Total, loose.Total)
	}
	if reversed.Total >= phrase.Total {
		t.Errorf(`"panic kernel" (%d hits) must be narrower than "kernel panic" (%d)`, reversed.Total, phrase.Total)
	}
	for _, h := range phrase.Hits {
		if !strings.Contains(strings.ToLower(documentText(lib, h.ID)), "kernel panic") {
			t.Errorf(`%s matches "kernel panic" but does not contain it`, h.ID)
		}
	}
	// A word twice in one phrase ("to" is a stop word, so the phrase is
	// node, a gap, node): both tokens read the one term's positions.
	twice := search(t, Request{Query: `"node to node"`, PerPage: 100})
	if twice.Total == 0 {
		t.Errorf(`"node to node" finds nothing; the library holds it`)
	}
	re := regexp.MustCompile(`(?i)\bnodes?('s)?\W+[\w.]+\W+nodes?\b`) // one token between, as analysed
	for _, h := range twice.Hits {
		if !re.MatchString(documentText(lib, h.ID)) {
			t.Errorf(`%s matches "node to node" but holds no node, a word, node`, h.ID)
		}
	}
}

func TestSearchFilters(t *testing.T) {
	lib := loadLibrary(t)
	tests := []struct {
		name string
		req  Request
		keep func(*library.Incident, *library.Playbook) bool
	}{
		{"kind playbook", Request{Kind: KindPlaybook},
			func(in *library.Incident, pb *library.Playbook) bool { return pb != nil }},
		{"kind incident with query", Request{Query: "GPU", Kind: KindIncident},
			func(in *library.Incident, pb *library.Playbook) bool { return in != nil }},
		{"one symptom", Request{Filters: map[library.Facet][]string{library.FacetSymptom: {"untolerated-taint"}}},
			func(in *library.Incident, pb *library.Playbook) bool {
				return hasTerm(in, pb, library.FacetSymptom, "untolerated-taint")
			}},
		{"OR within a facet", Request{Filters: map[library.Facet][]string{library.FacetComponent: {"coredns", "etcd"}}},
			func(in *library.Incident, pb *library.Playbook) bool {
				return hasTerm(in, pb, library.FacetComponent, "coredns") || hasTerm(in, pb, library.FacetComponent, "etcd")
			}},
		{"AND across facets", Request{Query: "outage", Filters: map[library.Facet][]string{library.FacetDomain: {"gpu"}, library.FacetCauseCategory: {"hardware-failure"}}},
			func(in *library.Incident, pb *library.Playbook) bool {
				return hasTerm(in, pb, library.FacetDomain, "gpu") && hasCategory(lib, in, "hardware-failure")
			}},
		{"organization, any case", Request{Org: []string{"openai"}},
			func(in *library.Incident, pb *library.Playbook) bool { return in != nil && in.Organization == "OpenAI" }},
		{"year", Request{Year: []int{2024, 2025}},
			func(in *library.Incident, pb *library.Playbook) bool {
				return in != nil && (in.Year == 2024 || in.Year == 2025)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.PerPage = MaxPerPage
			res := search(t, tt.req)
			want := 0
			for _, in := range lib.Incidents {
				if tt.keep(in, nil) {
					want++
				}
			}
			for _, pb := range lib.Playbooks {
				if tt.keep(nil, pb) {
					want++
				}
			}
			if tt.req.Query == "" && res.Total != want {
				t.Errorf("total %d, want %d", res.Total, want)
			}
			if res.Total == 0 {
				t.Fatal("no hits")
			}
			for _, h := range res.Hits {
				in, _ := lib.Incident(h.ID)
				pb, _ := lib.Playbook(h.ID)
				if !tt.keep(in, pb) {
					t.Errorf("%s does not satisfy the filter", h.ID)
				}
			}
		})
	}
}

func TestSearchEmptyQueryListsNewestFirst(t *testing.T) {
	lib := loadLibrary(t)
	res := search(t, Request{PerPage: 5, Page: 2})
	if res.Total != len(lib.Incidents)+len(lib.Playbooks) {
		t.Errorf("total %d, want every document (%d)", res.Total, len(lib.Incidents)+len(lib.Playbooks))
	}
	var want []string
	for _, in := range lib.Incidents[5:10] {
		want = append(want, in.ID)
	}
	if got := hitIDs(res); !slices.Equal(got, want) {
		t.Errorf("page 2: %v, want %v", got, want)
	}
	if len(res.SuggestedFilters) != 0 {
		t.Errorf("empty query suggests %v", res.SuggestedFilters)
	}
	if n := len(res.Facets["kind"]); n != 2 {
		t.Errorf("kind facet has %d terms, want 2", n)
	}
}

func TestSearchFacetsCountResultSet(t *testing.T) {
	lib := loadLibrary(t)
	res := search(t, Request{Query: "GPU", PerPage: MaxPerPage})
	counts := map[string]int{}
	for page := 1; (page-1)*MaxPerPage < res.Total; page++ {
		for _, h := range search(t, Request{Query: "GPU", PerPage: MaxPerPage, Page: page}).Hits {
			in, _ := lib.Incident(h.ID)
			pb, _ := lib.Playbook(h.ID)
			for _, s := range termsOf(in, pb, library.FacetSymptom) {
				counts[s]++
			}
		}
	}
	for _, fc := range res.Facets["symptom"] {
		if fc.Count != counts[fc.Term] {
			t.Errorf("symptom %s: facet count %d, hits carry it %d times", fc.Term, fc.Count, counts[fc.Term])
		}
		if fc.Label == "" || fc.Label == fc.Term && fc.Term != "kubelet" {
			t.Errorf("symptom %s has label %q", fc.Term, fc.Label)
		}
	}
}

func TestSearchRejectsMalformedRequests(t *testing.T) {
	ix := sharedIndex(t)
	for name, r := range map[string]Request{
		"invalid UTF-8":      {Query: "gpu \xff"},
		"control character":  {Query: "gpu\x00"},
		"too long":           {Query: strings.Repeat("gpu ", 400)},
		"negative page":      {Page: -1},
		"page size":          {PerPage: MaxPerPage + 1},
		"past the last page": {Page: LastPage(10) + 1, PerPage: 10},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := ix.Search(context.Background(), r)
			if !isQueryError(err) {
				t.Fatalf("Search(%+v) = %v, %v; want a *QueryError", r, res, err)
			}
		})
	}
	// Filters come resolved by selection, which refuses an unknown one; a
	// value the taxonomy does not have matches nothing.
	for name, r := range map[string]Request{
		"unknown kind": {Kind: "postmortem"},
		"unknown term": {Filters: map[library.Facet][]string{library.FacetSymptom: {"pod-pendng"}}},
	} {
		if res, err := ix.Search(context.Background(), r); err != nil || res.Total != 0 {
			t.Errorf("%s: %v results, err %v; want none", name, res.Total, err)
		}
	}
}

// A quote left open runs to the end of the query: the answer is the one
// for the phrase closed, not a refusal (people paste errors cut after a
// quote, and forget the closing one).
func TestSearchUnclosedQuoteIsAPhraseToTheEnd(t *testing.T) {
	ix := sharedIndex(t)
	for open, closed := range map[string]string{
		`"Failed to initialize NVML`:                 `"Failed to initialize NVML"`,
		`is forbidden: User "system:serviceaccount:`: `is forbidden: User "system:serviceaccount:"`,
	} {
		got, err := ix.Search(context.Background(), Request{Query: open})
		if err != nil {
			t.Fatalf("%s: %v", open, err)
		}
		want, err := ix.Search(context.Background(), Request{Query: closed})
		if err != nil {
			t.Fatal(err)
		}
		if got.Total == 0 || got.Total != want.Total || got.Hits[0].ID != want.Hits[0].ID {
			t.Errorf("%s: %d results, first %v; closed, %d results, first %v", open, got.Total, firstID(got), want.Total, firstID(want))
		}
	}
}

func firstID(r *Result) string {
	if len(r.Hits) == 0 {
		return ""
	}
	return r.Hits[0].ID
}

var markRE = regexp.MustCompile(`</?mark>`)

func TestSearchFragmentsAreSafeHTML(t *testing.T) {
	for _, q := range []string{"<namespace>", "kubectl get pods", "Failed to initialize NVML", "노드 자동 복구"} {
		res := search(t, Request{Query: q})
		marks := 0
		for _, h := range res.Hits {
			for key, frags := range h.Fragments {
				for _, f := range frags {
					marks += strings.Count(f, "<mark>")
					if rest := markRE.ReplaceAllString(f, ""); strings.ContainsAny(rest, "<>") {
						t.Errorf("%q: %s %s: unescaped markup in %q", q, h.ID, key, f)
					}
					if strings.Count(f, "<mark>") != strings.Count(f, "</mark>") {
						t.Errorf("%q: %s %s: unbalanced marks in %q", q, h.ID, key, f)
					}
				}
			}
		}
		if marks == 0 {
			t.Errorf("%q: no highlighted match in any fragment", q)
		}
	}
}

func TestResultJSONShape(t *testing.T) {
	res := search(t, Request{Query: "taint toleration GPU mismatch", PerPage: 1})
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if keys := sortedMapKeys(got); !slices.Equal(keys, []string{"best", "facets", "hits", "query", "suggested_filters", "total"}) {
		t.Errorf("result keys %v", keys)
	}
	hit := got["hits"].([]any)[0].(map[string]any)
	delete(hit, "title_ko") // present where the library has Korean
	delete(hit, "summary_ko")
	if keys := sortedMapKeys(hit); !slices.Equal(keys, []string{"best", "fragments", "id", "kind", "score", "summary", "title"}) {
		t.Errorf("hit keys %v", keys)
	}
	sug := got["suggested_filters"].([]any)[0].(map[string]any)
	if keys := sortedMapKeys(sug); !slices.Equal(keys, []string{"count", "facet", "label", "label_ko", "term"}) {
		t.Errorf("suggestion keys %v", keys)
	}
	fc := got["facets"].(map[string]any)["symptom"].([]any)[0].(map[string]any)
	if keys := sortedMapKeys(fc); !slices.Equal(keys, []string{"count", "label", "term"}) {
		t.Errorf("facet count keys %v", keys)
	}
	best := got["best"].(map[string]any)
	if keys := sortedMapKeys(best); !slices.Equal(keys, []string{"commands", "playbook", "route", "section", "title", "title_ko", "url"}) {
		t.Errorf("best keys %v", keys)
	}
	if best["route"] != "pending/untolerated-taint" || best["url"] != "/playbooks/pod-pending#cause-c-untolerated-taint" {
		t.Errorf("best is %v, want the untolerated-taint section of pod-pending", best)
	}
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func termsOf(in *library.Incident, pb *library.Playbook, f library.Facet) []string {
	switch {
	case in != nil:
		return in.Terms(f)
	case pb != nil && f == library.FacetSymptom:
		return pb.Symptoms
	case pb != nil && f == library.FacetComponent:
		return pb.Components
	}
	return nil
}

func hasTerm(in *library.Incident, pb *library.Playbook, f library.Facet, id string) bool {
	return slices.Contains(termsOf(in, pb, f), id)
}

func hasCategory(lib *library.Library, in *library.Incident, cat string) bool {
	if in == nil {
		return false
	}
	for _, c := range in.Causes {
		if t, ok := lib.Taxonomy.Term(library.FacetCause, c); ok && t.Category == cat {
			return true
		}
	}
	return false
}

func documentText(lib *library.Library, id string) string {
	ix := newIndex(lib)
	rank := slices.IndexFunc(ix.byRank, func(s source) bool { return s.id() == id })
	d := ix.document(rank)
	var b strings.Builder
	for _, segs := range d.text {
		for _, s := range segs {
			b.WriteString(s.text + "\n")
		}
	}
	return b.String()
}

func TestSearchPagesAreConsistent(t *testing.T) {
	for _, q := range []string{"gpu node", "outage", "kubernetes upgrade broke"} {
		all := hitIDs(search(t, Request{Query: q, PerPage: 40}))
		var paged []string
		for page := 1; page <= 8; page++ {
			paged = append(paged, hitIDs(search(t, Request{Query: q, PerPage: 5, Page: page}))...)
		}
		if !slices.Equal(all, paged) {
			t.Errorf("%q: pages of 5 give %v, one page of 40 gives %v", q, paged, all)
		}
	}
}

func TestSearchNamesMatchedTerms(t *testing.T) {
	tests := []struct{ query, id, want string }{
		{"toleration", "gpu-workload-not-scheduled", "Symptom: <mark>Untolerated taint</mark>"},
		{"hardware failure", "IL-0200", "Cause category: <mark>Hardware failure</mark>"},
		{"노드 자동 복구", "IL-0171", "Component: <mark>Node auto-repair</mark>"},
	}
	for _, tt := range tests {
		res := search(t, Request{Query: tt.query, PerPage: MaxPerPage})
		i := rankOf(res, tt.id)
		if i == 0 {
			t.Errorf("%q does not find %s", tt.query, tt.id)
			continue
		}
		if got := res.Hits[i-1].Fragments["terms"]; !slices.Contains(got, tt.want) {
			t.Errorf("%q: %s has term fragments %q, want %q among them", tt.query, tt.id, got, tt.want)
		}
	}
}

func TestSearchConcurrently(t *testing.T) {
	ix := sharedIndex(t)
	queries := []string{"taint toleration GPU mismatch", "노드 자동 복구", "", `"kernel panic"`, "karpneter", "nvidia.com/gpu"}
	errs := make(chan error, 4*len(queries))
	for g := range 4 {
		go func() {
			for i := range queries {
				_, err := ix.Search(context.Background(), Request{Query: queries[(g+i)%len(queries)]})
				errs <- err
			}
		}()
	}
	for range 4 * len(queries) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
