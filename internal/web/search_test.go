package web_test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"casebook/internal/library"
	"casebook/internal/search"
)

// newSearchHandler is the shared portal, which loads the search index
// like every Content.
func newSearchHandler(t *testing.T) http.Handler { return newHandler(t) }

var tabRE = regexp.MustCompile(`^(All|Incidents|Playbooks) \((\d+)\)$`)

// tabs reads the kind tabs: label -> (count, href).
func tabs(t *testing.T, doc *goquery.Document) map[string]struct {
	n    int
	href string
} {
	t.Helper()
	out := map[string]struct {
		n    int
		href string
	}{}
	doc.Find(`nav[aria-label="Kind"] a`).Each(func(_ int, s *goquery.Selection) {
		m := tabRE.FindStringSubmatch(strings.TrimSpace(s.Text()))
		if m == nil {
			t.Errorf("tab %q does not read like \"Incidents (12)\"", s.Text())
			return
		}
		n, _ := strconv.Atoi(m[2])
		out[m[1]] = struct {
			n    int
			href string
		}{n, s.AttrOr("href", "")}
	})
	if len(out) != 3 {
		t.Fatalf("tabs %v, want All, Incidents and Playbooks", out)
	}
	return out
}

// Every tab shows its count, All is the sum, and opening a tab shows as
// many results as its count said.
func TestSearchPageTabs(t *testing.T) {
	h := newSearchHandler(t)
	for _, q := range []string{"gpu+driver", "GPU+node+present+but+workload+not+scheduled", "taint+toleration+GPU+mismatch", "%ED%8C%8C%EB%93%9C+%ED%8E%9C%EB%94%A9"} {
		doc := page(t, h, "/search?q="+q, http.StatusOK)
		tb := tabs(t, doc)
		_, _, total := countLine(t, doc)
		if tb["All"].n != total || tb["Incidents"].n+tb["Playbooks"].n != total {
			t.Errorf("%s: tabs %v, results %d", q, tb, total)
		}
		for _, k := range []string{"Incidents", "Playbooks"} {
			tab := page(t, h, tb[k].href, http.StatusOK)
			_, _, n := countLine(t, tab)
			if n != tb[k].n {
				t.Errorf("%s: the %s tab said %d and shows %d", q, k, tb[k].n, n)
			}
			if again := tabs(t, tab); again["All"].n != tb["All"].n {
				t.Errorf("%s: All counts %d on the %s tab, %d on All", q, again["All"].n, k, tb["All"].n)
			}
		}
	}
}

// An incident id typed into the search box opens the incident.
func TestSearchPageOpensIncidentByID(t *testing.T) {
	h := newSearchHandler(t)
	for _, q := range []string{"IL-0171", "il-0171", "171"} {
		rec := get(t, h, "/search?q="+q)
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/incidents/IL-0171" {
			t.Errorf("%s: status %d, Location %q", q, rec.Code, rec.Header().Get("Location"))
		}
	}
	var res search.Result
	getJSON(t, h, "/api/search?q=il-171", http.StatusOK, &res)
	if res.Exact != "IL-0171" || len(res.Hits) == 0 || res.Hits[0].ID != "IL-0171" {
		t.Errorf("/api/search?q=il-171: exact %q, hits %v", res.Exact, res.Hits)
	}
}

// "Most common in this set" and the graph panel count the result, not the
// library.
func TestSearchPageDescribesResult(t *testing.T) {
	h := newSearchHandler(t)
	var res search.Result
	getJSON(t, h, "/api/search?q=karpenter&per_page=100", http.StatusOK, &res)
	doc := page(t, h, "/search?q=karpenter", http.StatusOK)
	symptoms := map[string]int{}
	for _, fc := range res.Facets["symptom"] {
		symptoms[fc.Label] = fc.Count
	}
	byTestID(doc, "common").Find("dd a").Each(func(_ int, s *goquery.Selection) {
		n, _ := strconv.Atoi(strings.Trim(s.Next().Text(), "()"))
		if n > res.Total {
			t.Errorf("most common %q counts %d of a result of %d", s.Text(), n, res.Total)
		}
		if !strings.HasPrefix(s.AttrOr("href", ""), "/search?") || !strings.Contains(s.AttrOr("href", ""), "q=karpenter") {
			t.Errorf("most common %q links to %q, want the search with the filter added", s.Text(), s.AttrOr("href", ""))
		}
	})
	url := doc.Find(".graph-canvas").AttrOr("data-graph-url", "")
	if !strings.Contains(url, "q=karpenter") {
		t.Fatalf("graph data URL %q does not carry the query", url)
	}
	var g struct {
		Nodes []struct {
			ID, Kind string
		} `json:"nodes"`
	}
	getJSON(t, h, url, http.StatusOK, &g)
	cases := 0
	for _, n := range g.Nodes {
		if strings.HasPrefix(n.ID, "case:") {
			cases++
		}
	}
	incidents := 0
	for _, fc := range res.Facets["kind"] {
		if fc.Term == search.KindIncident {
			incidents = fc.Count
		}
	}
	if cases == 0 || cases != incidents {
		t.Errorf("graph of karpenter has %d cases, the result %d incidents", cases, incidents)
	}
}

// A search without results offers the spelling, the filters to drop and the
// wizard, and each offer leads to results. The domain is one where the
// library has no karpenter incident, chosen from the library as it is now
// (it grows), so the test never has nothing to check.
func TestSearchPageZeroResults(t *testing.T) {
	h := newSearchHandler(t)
	var tax map[string][]struct{ ID string }
	if rec := get(t, h, "/api/taxonomy"); rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &tax) != nil {
		t.Fatalf("/api/taxonomy: %d", rec.Code)
	}
	var doc *goquery.Document
	domain := ""
	for _, d := range tax[string(library.FacetDomain)] {
		doc = page(t, h, "/search?q=karpenter&domain="+d.ID, http.StatusOK)
		if _, _, total := countLine(t, doc); total == 0 {
			domain = d.ID
			break
		}
	}
	if domain == "" {
		t.Fatal("karpenter is found in every domain; pick another word for a search without results")
	}
	one(t, doc, "search-help")
	one(t, doc, "help-wizard")
	drop := byTestID(doc, "drop-filter")
	if drop.Length() == 0 {
		t.Fatal("no filter to drop offered")
	}
	after := page(t, h, drop.First().AttrOr("href", ""), http.StatusOK)
	if _, _, total := countLine(t, after); total == 0 {
		t.Errorf("dropping %q still finds nothing", drop.First().Text())
	}
	doc = page(t, h, "/search?q=bottlerockt+karpnter&domain="+domain, http.StatusOK)
	if dym := byTestID(doc, "did-you-mean"); dym.Length() == 1 && !strings.Contains(dym.Text(), "karpenter") {
		t.Errorf("did you mean %q", dym.Text())
	}
}

// A query past the caps is a 400 that names the limit.
func TestSearchRefusesHugeQuery(t *testing.T) {
	h := newSearchHandler(t)
	rec := get(t, h, "/api/search?q="+strings.Repeat("gpu+", 60))
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "limit") {
		t.Errorf("status %d, body %.200s", rec.Code, rec.Body.String())
	}
}

// The seeds' Korean search: a particle and a verb ending do not block the
// match, and the GPU-missing playbook comes first with its incidents.
func TestSearchPageKoreanGPUMissing(t *testing.T) {
	h := newSearchHandler(t)
	doc := page(t, h, "/search?q=GPU%EA%B0%80+%EC%95%88+%EB%B3%B4%EC%9E%84&lang=ko", http.StatusOK)
	ids := cardIDs(doc)
	if len(ids) < 5 || ids[0] != "gpu-missing" {
		t.Fatalf("GPU가 안 보임: cards %v, want gpu-missing first", ids)
	}
	lib, _, err := library.Load(os.DirFS("../../library"))
	if err != nil {
		t.Fatal(err)
	}
	linked := 0
	for _, id := range ids[1:5] {
		if in, ok := lib.Incident(id); ok && slices.Contains(in.Playbooks, "gpu-missing") {
			linked++
		}
	}
	if linked < 2 {
		t.Errorf("GPU가 안 보임: of %v, %d link the gpu-missing playbook; want its incidents next", ids[1:5], linked)
	}
}
