package selection

import (
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"casebook/internal/library"
	"casebook/internal/store"
)

func fixture(t *testing.T) (*library.Taxonomy, map[string]string) {
	t.Helper()
	lib, _, err := library.Load(os.DirFS("../library/testdata/good"))
	if err != nil {
		t.Fatal(err)
	}
	orgs := map[string]string{}
	for _, in := range lib.Incidents {
		orgs[library.Slug(in.Organization)] = in.Organization
	}
	return lib.Taxonomy, orgs
}

var (
	paging = Paging{DefaultPerPage: 20, MaxPerPage: 100}
	layers = []string{"public", "acme"}
)

func TestParse(t *testing.T) {
	tax, orgs := fixture(t)
	var anOrg, itsSlug string
	for slug, name := range orgs {
		anOrg, itsSlug = name, slug
		break
	}
	tests := []struct {
		name string
		q    string
		want Selection
	}{
		{"nothing", "", Selection{Sort: store.SortNewest, Page: 1, PerPage: 20}},
		{"repeated and comma-separated, deduplicated", "component=gpu-driver,node-os-image&component=gpu-driver&year=2024,2023",
			Selection{Filter: store.Filter{Terms: map[library.Facet][]string{library.FacetComponent: {"gpu-driver", "node-os-image"}}, Years: []int{2024, 2023}},
				Sort: store.SortNewest, Page: 1, PerPage: 20}},
		{"org by name or slug", "org=" + url.QueryEscape(anOrg) + "&org=" + itsSlug,
			Selection{Filter: store.Filter{Orgs: []string{itsSlug}}, Sort: store.SortNewest, Page: 1, PerPage: 20}},
		{"everything else", "q=+taint+gpu+&kind=playbook&sort=title&page=3&per_page=50&lang=ko",
			Selection{Query: "taint gpu", Kind: KindPlaybook, Sort: store.SortTitle, Page: 3, PerPage: 50, Lang: "ko"}},
		{"kind all is both", "kind=all", Selection{Sort: store.SortNewest, Page: 1, PerPage: 20}},
		{"layer (the Source facet)", "layer=acme,public&layer=acme",
			Selection{Filter: store.Filter{Layers: []string{"acme", "public"}}, Sort: store.SortNewest, Page: 1, PerPage: 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.q)
			got, err := Parse(q, tax, orgs, layers, paging)
			if err != nil {
				t.Fatal(err)
			}
			if got.Filter.Terms == nil {
				t.Fatal("Terms is nil")
			}
			if len(tt.want.Filter.Terms) == 0 {
				tt.want.Filter.Terms = map[library.Facet][]string{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// A parsed selection renders back to parameters that parse to it.
			again, err := Parse(got.Values(paging.DefaultPerPage), tax, orgs, layers, paging)
			if err != nil || !cmp.Equal(got, again) {
				t.Errorf("round trip: %v\n%s", err, cmp.Diff(got, again))
			}
		})
	}
}

// Every door shows these messages; each names the fix.
func TestParseRefuses(t *testing.T) {
	tax, orgs := fixture(t)
	tests := []struct{ q, want string }{
		{"component=gpu-drivr", `unknown component "gpu-drivr" (did you mean "gpu-driver"?)`},
		{"cause_category=nope-nope-nope-nope", `unknown cause_category "nope-nope-nope-nope"`},
		{"org=no-such-org-anywhere", `unknown org "no-such-org-anywhere"`},
		{"year=20x4", `invalid year "20x4": want a four-digit year such as 2024`},
		{"year=1800", `invalid year "1800"`},
		{"sort=random", `invalid sort "random": want newest, oldest or title`},
		{"page=0", `invalid page "0": want a number from 1 to 501`},
		{"page=502", `invalid page "502": want a number from 1 to 501`},
		{"per_page=100&page=102", `invalid page "102": want a number from 1 to 101`},
		{"per_page=500", `invalid per_page "500": want a number from 1 to 100`},
		{"kind=video", `invalid kind "video": want incident, playbook or all`},
		{"lang=fr", `invalid lang "fr": want en or ko`},
		{"layer=acm", `unknown layer "acm" (did you mean "acme"?)`},
		{"q=" + strings.Repeat("x", MaxQuery+1), "query is 501 bytes, at most 500"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.q)
			_, err := Parse(q, tax, orgs, layers, paging)
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrInvalid saying %q", err, tt.want)
			}
		})
	}
}

func TestParseFocus(t *testing.T) {
	tax, _ := fixture(t)
	for in, want := range map[string]string{"": "", "component:gpu-driver": "component:gpu-driver"} {
		if got, err := ParseFocus(in, tax); err != nil || got != want {
			t.Errorf("ParseFocus(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"gpu-driver", "colour:red", "component:gpu-drivr", "case:IL-9001"} {
		if _, err := ParseFocus(bad, tax); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseFocus(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

// TestEncodeIsValuesEncode: the page's links are built with Encode, the
// rest of the code with Values; both must write the same address, or a
// link and its canonical form would differ.
func TestEncodeIsValuesEncode(t *testing.T) {
	for _, s := range []Selection{
		{},
		{Query: "gpu driver"},
		{Query: `"x509: certificate" &=?#%`, Kind: "incident", Page: 3, PerPage: 50, Sort: store.SortTitle, Lang: "ko"},
		{Query: "파드 Pending", PerPage: 20, Page: 1, Sort: store.SortNewest},
		{Filter: store.Filter{
			Terms:  map[library.Facet][]string{library.FacetSymptom: {"pod-pending", "gpu-missing"}, library.FacetCause: {"untolerated-taint"}, library.FacetDomain: {"gpu"}},
			Orgs:   []string{"google-cloud-gke", "a&b"},
			Years:  []int{2024, 2019},
			Layers: []string{"public", "team one"},
		}, Query: "oom", Kind: "playbook"},
	} {
		if got, want := s.Encode(20), s.Values(20).Encode(); got != want {
			t.Errorf("Encode = %q, Values().Encode() = %q", got, want)
		}
	}
}
