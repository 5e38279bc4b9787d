package web_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestTrendsLinksCount follows every bar, cell and table link of /trends
// under several filters and checks that the library it opens lists
// exactly the number the link shows.
func TestTrendsLinksCount(t *testing.T) {
	h := newHandler(t)
	for _, filter := range []string{"", "domain=gpu", "domain=gpu&year=2024,2025,2026", "cause_category=capacity,hardware-failure", "layer=public&factor=single-point-of-failure"} {
		t.Run(filter, func(t *testing.T) {
			doc := page(t, h, "/trends?"+filter, http.StatusOK)
			for _, id := range []string{"chart-causes-by-year", "chart-domains-by-year", "chart-components", "chart-factors"} {
				if byTestID(doc, id).Find(`[data-testid="chart-table"]`).Length() != 1 {
					t.Errorf("%s has no table", id)
				}
			}
			checked := map[string]int{}
			links := byTestID(doc, "trends").Find("a[data-count]")
			if links.Length() < 10 {
				t.Fatalf("%d counted links on the page", links.Length())
			}
			links.Each(func(_ int, a *goquery.Selection) {
				href, _ := a.Attr("href")
				want, err := strconv.Atoi(a.AttrOr("data-count", ""))
				if err != nil || want < 1 {
					t.Errorf("%s: data-count %q", href, a.AttrOr("data-count", ""))
					return
				}
				if n, ok := checked[href]; ok {
					if n != want {
						t.Errorf("%s is shown as %d and as %d", href, n, want)
					}
					return
				}
				checked[href] = want
				if _, _, total := countLine(t, page(t, h, href, http.StatusOK)); total != want {
					t.Errorf("%s lists %d incidents, the chart says %d", href, total, want)
				}
			})
		})
	}
}

// TestTrendsPage: the page is in the navigation and in both languages,
// draws its charts as SVG with text, and refuses a bad filter as the
// library does.
func TestTrendsPage(t *testing.T) {
	h := newHandler(t)
	for _, tt := range []struct{ lang, title, nav string }{{"en", "Incidents per year by cause category", "Trends"}, {"ko", "연도별 사례 수(원인 분류별)", "추이"}} {
		doc := page(t, h, "/trends?lang="+tt.lang, http.StatusOK)
		if got := doc.Find(`#causes-by-year-title`).Text(); got != tt.title {
			t.Errorf("%s: chart title %q, want %q", tt.lang, got, tt.title)
		}
		if got := doc.Find(`nav a[href="/trends"][aria-current="page"]`).Text(); got != tt.nav {
			t.Errorf("%s: navigation shows %q, want %q", tt.lang, got, tt.nav)
		}
		if n := doc.Find("svg.chart-svg").Length(); n != 4 {
			t.Errorf("%s: %d charts, want 4", tt.lang, n)
		}
		if doc.Find("svg.chart-svg text").Length() < 40 || doc.Find(".chart-legend li").Length() < 2 {
			t.Errorf("%s: the charts lack text labels or a legend", tt.lang)
		}
	}
	if rec := get(t, h, "/trends?domain=gpus"); rec.Code != http.StatusBadRequest {
		t.Errorf("a mistyped domain: status %d, want 400", rec.Code)
	}
	doc := page(t, h, "/trends?year=1999", http.StatusOK)
	if byTestID(doc, "chart-empty").Length() != 4 {
		t.Errorf("a year with no incidents should say so under each chart")
	}
}

// TestTrendsAPI: /api/trends and /api/trends/{chart} carry the numbers
// the page draws, with the same filters.
func TestTrendsAPI(t *testing.T) {
	h := newHandler(t)
	type count struct {
		Count int    `json:"count"`
		Query string `json:"query"`
	}
	var all struct {
		Incidents int `json:"incidents"`
		Factors   struct {
			Rows []struct {
				Term          string `json:"term"`
				Organizations int    `json:"organizations"`
				Incidents     count  `json:"incidents"`
			} `json:"rows"`
		} `json:"factors"`
	}
	getJSON(t, h, "/api/trends?domain=gpu", http.StatusOK, &all)
	var one struct {
		Chart     string     `json:"chart"`
		Incidents int        `json:"incidents"`
		Factors   rawFactors `json:"factors"`
	}
	getJSON(t, h, "/api/trends/factors?domain=gpu", http.StatusOK, &one)
	if one.Chart != "factors" || one.Incidents != all.Incidents || len(one.Factors.Rows) != len(all.Factors.Rows) || len(all.Factors.Rows) == 0 {
		t.Errorf("/api/trends/factors %+v disagrees with /api/trends %+v", one, all.Factors)
	}
	var l apiList
	getJSON(t, h, "/api/incidents?per_page=1&domain=gpu", http.StatusOK, &l)
	if all.Incidents != l.Total {
		t.Errorf("trends count %d GPU incidents, the list %d", all.Incidents, l.Total)
	}
	for _, r := range all.Factors.Rows {
		var fl apiList
		getJSON(t, h, "/api/incidents?per_page=1&"+r.Incidents.Query, http.StatusOK, &fl)
		if fl.Total != r.Incidents.Count || len(fl.Facets["org"]) != r.Organizations {
			t.Errorf("factor %s: %d incidents at %d organisations, its query lists %d at %d", r.Term, r.Incidents.Count, r.Organizations, fl.Total, len(fl.Facets["org"]))
		}
	}
	if rec := get(t, h, "/api/trends/pie"); rec.Code != http.StatusNotFound {
		t.Errorf("an unknown chart: status %d, want 404", rec.Code)
	}
}

type rawFactors struct {
	Rows []struct{} `json:"rows"`
}

// TestSideGraphTermsOnly: beside a list of more than 60 cases the graph
// draws terms only; a short list and the graph page draw the cases.
func TestSideGraphTermsOnly(t *testing.T) {
	h := newHandler(t)
	for _, tt := range []struct {
		path string
		want bool
	}{{"/", true}, {"/?component=gpu-driver", false}, {"/graph", false}, {"/search?q=gpu", true}, {"/search?q=coredns", false}} {
		doc := page(t, h, tt.path, http.StatusOK)
		canvas := doc.Find(".graph-canvas")
		if canvas.Length() != 1 {
			t.Fatalf("%s: %d graph canvases", tt.path, canvas.Length())
		}
		if _, got := canvas.Attr("data-terms-only"); got != tt.want {
			t.Errorf("%s: terms only %v, want %v", tt.path, got, tt.want)
		}
		if got := byTestID(doc, "graph-terms-only").Length() == 1; got != tt.want {
			t.Errorf("%s: the terms-only note shown %v, want %v", tt.path, got, tt.want)
		}
	}
}
