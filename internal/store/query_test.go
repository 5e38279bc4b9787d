package store

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"casebook/internal/library"
)

func ids(items []IncidentSummary) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

func TestListIncidentsFilters(t *testing.T) {
	s, _ := readStore(t)
	type terms = map[library.Facet][]string
	tests := []struct {
		name   string
		filter Filter
		want   []string
	}{
		{"no filter", Filter{}, []string{"IL-9001", "IL-9002", "IL-9003", "IL-9004"}},
		{"one component", Filter{Terms: terms{library.FacetComponent: {"gpu-driver"}}}, []string{"IL-9001", "IL-9003"}},
		{"OR within a facet", Filter{Terms: terms{library.FacetComponent: {"kube-scheduler", "container-registry"}}}, []string{"IL-9002", "IL-9004"}},
		{"AND across facets", Filter{Terms: terms{library.FacetComponent: {"gpu-driver"}, library.FacetSymptom: {"node-not-ready"}}}, []string{"IL-9003"}},
		{"cause", Filter{Terms: terms{library.FacetCause: {"faulty-change-rollout"}}}, []string{"IL-9001", "IL-9002"}},
		{"cause category", Filter{Terms: terms{library.FacetCauseCategory: {"deployment-defect"}}}, []string{"IL-9001", "IL-9002"}},
		{"cause categories OR", Filter{Terms: terms{library.FacetCauseCategory: {"software-defect", "dependency-failure"}}}, []string{"IL-9003", "IL-9004"}},
		{"contributing factor", Filter{Terms: terms{library.FacetFactor: {"fleet-wide-blast-radius"}}}, []string{"IL-9001", "IL-9003"}},
		{"domain", Filter{Terms: terms{library.FacetDomain: {"ai-infra"}}}, []string{"IL-9001", "IL-9003"}},
		{"org", Filter{Orgs: []string{"example-gpu-co"}}, []string{"IL-9001", "IL-9003"}},
		{"orgs OR", Filter{Orgs: []string{"example-cloud", "example-registry-ltd"}}, []string{"IL-9002", "IL-9004"}},
		{"year", Filter{Years: []int{2023}}, []string{"IL-9002", "IL-9003"}},
		{"year AND category", Filter{Years: []int{2023}, Terms: terms{library.FacetCauseCategory: {"deployment-defect"}}}, []string{"IL-9002"}},
		{"org AND symptom", Filter{Orgs: []string{"example-gpu-co"}, Terms: terms{library.FacetSymptom: {"node-not-ready"}}}, []string{"IL-9003"}},
		{"nothing matches", Filter{Years: []int{2024}, Terms: terms{library.FacetDomain: {"kubernetes"}, library.FacetCause: {"registry-outage"}}}, []string{}},
		{"unknown term", Filter{Terms: terms{library.FacetCause: {"no-such-cause"}}}, []string{}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, total, err := s.ListIncidents(ctx, tt.filter, SortNewest, 1, 50)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, ids(items)); diff != "" {
				t.Errorf("ListIncidents (-want +got):\n%s", diff)
			}
			if total != len(tt.want) {
				t.Errorf("total = %d, want %d", total, len(tt.want))
			}
			got, err := s.FilteredIDs(ctx, tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("FilteredIDs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListIncidentsSortAndPages(t *testing.T) {
	s, _ := readStore(t)
	ctx := context.Background()
	tests := []struct {
		sort          string
		page, perPage int
		want          []string
	}{
		{SortNewest, 1, 10, []string{"IL-9001", "IL-9002", "IL-9003", "IL-9004"}},
		{SortOldest, 1, 10, []string{"IL-9004", "IL-9003", "IL-9002", "IL-9001"}},
		// Agent…, Blocked…, Driver…, Scheduler…
		{SortTitle, 1, 10, []string{"IL-9003", "IL-9004", "IL-9001", "IL-9002"}},
		{"", 1, 10, []string{"IL-9001", "IL-9002", "IL-9003", "IL-9004"}},
		{"bogus", 1, 10, []string{"IL-9001", "IL-9002", "IL-9003", "IL-9004"}},
		{SortNewest, 1, 3, []string{"IL-9001", "IL-9002", "IL-9003"}},
		{SortNewest, 2, 3, []string{"IL-9004"}},
		{SortNewest, 3, 3, []string{}},
		{SortOldest, 2, 2, []string{"IL-9002", "IL-9001"}},
		{SortNewest, 0, 2, []string{"IL-9001", "IL-9002"}}, // page 0 is page 1
	}
	for _, tt := range tests {
		items, total, err := s.ListIncidents(ctx, Filter{}, tt.sort, tt.page, tt.perPage)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, ids(items)); diff != "" {
			t.Errorf("sort %q page %d/%d (-want +got):\n%s", tt.sort, tt.page, tt.perPage, diff)
		}
		if total != 4 {
			t.Errorf("sort %q page %d: total = %d, want 4 whatever the page", tt.sort, tt.page, total)
		}
	}
}

func TestIncidentSummary(t *testing.T) {
	s, _ := readStore(t)
	items, _, err := s.ListIncidents(context.Background(), Filter{Years: []int{2023}}, SortNewest, 1, 1)
	if err != nil || len(items) != 1 {
		t.Fatal(items, err)
	}
	want := IncidentSummary{
		ID: "IL-9002", Title: "Scheduler change left pods Pending",
		Summary:      "TEST FIXTURE - a synthetic incident where a scheduler configuration change stopped new pods from being placed.",
		Organization: "Example Cloud", Date: "2023-11", Year: 2023, OrgSlug: "example-cloud",
		Domains: []string{"kubernetes"}, Components: []string{"kube-scheduler"}, Causes: []string{"faulty-change-rollout"},
		Symptoms: []string{"pod-pending"}, ContributingFactors: []string{"delayed-communication"},
		CauseCategories: []string{"deployment-defect"},
		TitleKo:         "테스트 사례 제목", SummaryKo: "테스트용으로 만든 가상의 사례입니다.", Kind: "incident", Layer: "public",
	}
	if diff := cmp.Diff(want, items[0]); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func TestIncidentsForRoute(t *testing.T) {
	s, _ := readStore(t)
	ctx := context.Background()
	got, err := s.IncidentsForRoute(ctx, "pending/insufficient-resources", 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"IL-9002"}, ids(got)); diff != "" {
		t.Errorf("incidents of the route (-want +got):\n%s", diff)
	}
	if got, err := s.IncidentsForRoute(ctx, "gpu/driver", 10); err != nil || len(got) != 0 {
		t.Errorf("a route no incident shows: %v, %v", ids(got), err)
	}
	in, err := s.Incident(ctx, "IL-9002")
	if err != nil || !slices.Equal(in.Routes, []string{"pending/insufficient-resources"}) {
		t.Errorf("incident routes = %v, %v", in.Routes, err)
	}
}

func TestFacetCounts(t *testing.T) {
	s, lib := readStore(t)
	// With domain=kubernetes selected, every other facet counts among the
	// three Kubernetes incidents, while the domain facet itself counts as if
	// nothing were selected in it (what a click on another domain would add).
	got, err := s.FacetCounts(context.Background(), Filter{Terms: map[library.Facet][]string{library.FacetDomain: {"kubernetes"}}}, lib.Taxonomy)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]FacetCount{
		"cause": {{"faulty-change-rollout", "Faulty change rolled out", "", 2}, {"registry-outage", "Registry outage", "", 1}},
		"component": {{"node-os-image", "Node OS image", "", 2}, {"container-registry", "Container registry", "", 1},
			{"gpu-driver", "GPU driver", "", 1}, {"kube-scheduler", "kube-scheduler", "", 1}},
		"symptom":        {{"gpu-missing", "GPU missing on the node", "", 1}, {"node-not-ready", "Node NotReady", "", 1}, {"pod-pending", "Pod stuck in Pending", "", 1}},
		"factor":         {{"delayed-communication", "Delayed communication", "", 1}, {"fleet-wide-blast-radius", "Fleet-wide blast radius", "", 1}},
		"domain":         {{"kubernetes", "Kubernetes", "", 3}, {"ai-infra", "AI infrastructure", "", 2}},
		"cause_category": {{"deployment-defect", "Deployment defect", "", 2}, {"dependency-failure", "Dependency failure", "", 1}},
		"org": {{"example-cloud", "Example Cloud", "", 1}, {"example-gpu-co", "Example GPU Co", "", 1},
			{"example-registry-ltd", "Example Registry Ltd", "", 1}},
		"year":  {{"2024", "2024", "", 1}, {"2023", "2023", "", 1}, {"2022", "2022", "", 1}},
		"layer": {{"public", "public", "", 3}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("facet counts (-want +got):\n%s", diff)
	}
}

// sectionOpts ignores the Section fields that are not stored: the plain text
// goes to the search index and the line only matters to lint.
var sectionOpts = cmp.Options{cmpopts.IgnoreFields(library.Section{}, "Text", "Line"), cmpopts.EquateEmpty()}

func TestIncidentRoundTrip(t *testing.T) {
	s, lib := readStore(t)
	ctx := context.Background()
	for _, want := range lib.Incidents {
		got, err := s.Incident(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		// The store holds the texts the parsed incident keeps compressed.
		if diff := cmp.Diff(want.WithBodies(), got, sectionOpts); diff != "" {
			t.Errorf("%s (-loaded +stored):\n%s", want.ID, diff)
		}
	}
	// Spot-check the parts a page shows, so the comparison above cannot
	// pass with both sides empty.
	in, _ := s.Incident(ctx, "IL-9001")
	if len(in.Sources) != 2 || in.Sources[1].Kind != "status-page" || len(in.Sections) != 6 || in.Sections[3].ID != "response" ||
		in.Sections[3].HTML != "<ul>\n<li>Rolled the driver back.</li>\n<li>Rebooted the affected nodes.</li>\n</ul>\n" {
		t.Errorf("IL-9001 stored without its sources or sections: %+v", in)
	}
}

func TestPlaybookRoundTrip(t *testing.T) {
	s, lib := readStore(t)
	ctx := context.Background()
	for _, want := range lib.Playbooks {
		got, err := s.Playbook(ctx, want.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, sectionOpts); diff != "" {
			t.Errorf("%s (-loaded +stored):\n%s", want.ID, diff)
		}
	}
	pb, _ := s.Playbook(ctx, "gpu-missing")
	if diff := cmp.Diff([]string{"detect", "scope", "mitigate", "cause-a-driver-not-loaded", "원인-b-드라이버-버전-불일치", "root-cause", "verify", "record"}, pb.Anchors()); diff != "" {
		t.Errorf("anchors after the round trip (-want +got):\n%s", diff)
	}
	list, err := s.Playbooks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantList := []PlaybookSummary{
		{ID: "gpu-missing", Title: "GPU missing on a node", Summary: "TEST FIXTURE - find out why a node shows fewer GPUs than it has.", Symptoms: []string{"gpu-missing"},
			TitleKo: "노드에서 GPU가 안 보일 때", SummaryKo: "테스트용 - 노드의 GPU가 실제보다 적게 보이는 이유를 찾는다.", Layer: "public"},
		{ID: "pod-pending", Title: "Pod stuck in Pending", Summary: "TEST FIXTURE - read the scheduler's reasons and fix the constraint.", Symptoms: []string{"pod-pending"}, Layer: "public"},
	}
	if diff := cmp.Diff(wantList, list); diff != "" {
		t.Errorf("Playbooks (-want +got):\n%s", diff)
	}
}

func TestNotFound(t *testing.T) {
	s, _ := readStore(t)
	ctx := context.Background()
	if _, err := s.Incident(ctx, "IL-0000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Incident(unknown) err = %v, want ErrNotFound", err)
	}
	if _, err := s.Playbook(ctx, "no-such-playbook"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Playbook(unknown) err = %v, want ErrNotFound", err)
	}
}

func TestSimilar(t *testing.T) {
	s, _ := readStore(t)
	ctx := context.Background()
	// IL-9003 shares five terms with IL-9001, three of them held by no
	// other incident (gpu-driver, gpu-missing, fleet-wide-blast-radius), so
	// it ranks first. Sharing a cause category alone does not count.
	items, err := s.Similar(ctx, "IL-9001", 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		got = append(got, it.ID)
	}
	if len(got) == 0 || got[0] != "IL-9003" {
		t.Fatalf("Similar order %v, want IL-9003 first", got)
	}
	for i := 1; i < len(items); i++ {
		if items[i].Score > items[i-1].Score {
			t.Errorf("not sorted by score: %v", items)
		}
	}
	first := items[0]
	if len(first.Shared) != 5 {
		t.Errorf("IL-9003 shares %v, want 5 terms", first.Shared)
	}
	// The rarest shared terms come first; node-os-image (held by three of
	// the four incidents) is the most common and comes last.
	if last := first.Shared[len(first.Shared)-1]; last.ID != "node-os-image" {
		t.Errorf("the most common shared term should come last, got %v", first.Shared)
	}
	for _, sh := range first.Shared {
		if sh.Facet == library.FacetCauseCategory {
			t.Errorf("cause categories must not count: %v", first.Shared)
		}
	}
	items, _ = s.Similar(ctx, "IL-9001", 1)
	if len(items) != 1 || items[0].ID != "IL-9003" {
		t.Errorf("Similar with limit 1 = %v", items)
	}
	items, err = s.Similar(ctx, "IL-0000", 10)
	if err != nil || len(items) != 0 {
		t.Errorf("Similar(unknown) = %v, %v; want nothing", items, err)
	}
}

func TestCoOccurring(t *testing.T) {
	s, _ := readStore(t)
	got, err := s.CoOccurring(context.Background(), library.FacetComponent, "gpu-driver", 5)
	if err != nil {
		t.Fatal(err)
	}
	want := []CoTerm{
		{library.FacetComponent, "node-os-image", 2},
		{library.FacetDomain, "ai-infra", 2},
		{library.FacetFactor, "fleet-wide-blast-radius", 2},
		{library.FacetSymptom, "gpu-missing", 2},
		{library.FacetCause, "faulty-change-rollout", 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CoOccurring (-want +got):\n%s", diff)
	}
}

func TestLinksAndPlaybookIncidents(t *testing.T) {
	s, _ := readStore(t)
	ctx := context.Background()
	links, err := s.Links(ctx, Filter{Years: []int{2022}})
	if err != nil {
		t.Fatal(err)
	}
	want := []TermLink{
		{"IL-9004", library.FacetCause, "registry-outage"},
		{"IL-9004", library.FacetComponent, "container-registry"},
		{"IL-9004", library.FacetComponent, "node-os-image"},
		{"IL-9004", library.FacetSymptom, "node-not-ready"},
	}
	if diff := cmp.Diff(want, links); diff != "" {
		t.Errorf("Links (-want +got):\n%s", diff)
	}
	items, err := s.IncidentsForPlaybook(ctx, "gpu-missing", 10)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"IL-9001", "IL-9003"}, ids(items)); diff != "" {
		t.Errorf("IncidentsForPlaybook (-want +got):\n%s", diff)
	}
}

func TestProblemsAndCounts(t *testing.T) {
	lib := loadGood(t)
	problems := []library.Problem{
		{Path: "incidents/IL-9101-unknown-term.md", Line: 8, Msg: `unknown Component "gpu-drivr" in components`},
		{Path: "triage", Msg: "whole-folder problem"},
	}
	s, err := Build(context.Background(), t.TempDir(), lib, problems)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Problems(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(problems, got); diff != "" {
		t.Errorf("Problems (-want +got):\n%s", diff)
	}
	orgs, err := s.OrgSlugs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"example-cloud", "example-gpu-co", "example-registry-ltd"}, orgs); diff != "" {
		t.Errorf("OrgSlugs (-want +got):\n%s", diff)
	}
}
